#!/bin/bash
set -e
# step[easy-to-miss]: write the check (empty counts as missing, exit 3)
cat > /app/preflight.sh <<'SH'
#!/bin/bash
bad=0
for v in API_URL API_KEY; do
  if [ -z "${!v}" ]; then
    echo "missing $v" >&2
    bad=1
  fi
done
[ "$bad" -eq 0 ] || exit 3
echo ok
SH
# step: make it executable
chmod +x /app/preflight.sh
API_URL=x API_KEY=y /app/preflight.sh
