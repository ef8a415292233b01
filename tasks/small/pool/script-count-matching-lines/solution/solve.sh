#!/bin/bash
set -e
# step[easy-to-miss]: write the counter (grep -c exits 1 on no match, so keep exit 0), with the missing-file case
cat > /app/tools/countmatch.sh <<'SH'
#!/bin/bash
if [ ! -f "$2" ]; then
  echo "no such file: $2" >&2
  exit 2
fi
grep -c -F -- "$1" "$2" || true
SH
# step: make it executable
chmod +x /app/tools/countmatch.sh
/app/tools/countmatch.sh TIMEOUT /app/samples/gateway.log
