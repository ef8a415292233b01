#!/bin/bash
set -e
# step: write the rotation script (shift, compress, truncate in place, retention 4)
cat > /app/rotate.sh <<'SH'
#!/bin/bash
set -euo pipefail
dir="${1:-/app/logs}"
keep=4
shopt -s nullglob
for log in "$dir"/*.log; do
  [ -f "$log" ] || continue
  # skip-empty guard
  # shift existing archives, highest first
  nums=$(for a in "$log".*.gz; do n="${a#"$log".}"; n="${n%.gz}"; [[ "$n" =~ ^[0-9]+$ ]] && echo "$n"; done | sort -rn)
  for n in $nums; do
    if [ "$n" -ge "$keep" ]; then
      rm -f "$log.$n.gz"
    else
      mv -f "$log.$n.gz" "$log.$((n+1)).gz"
    fi
  done
  gzip -c "$log" > "$log.1.gz"
  : > "$log"
done
SH
chmod +x /app/rotate.sh
# step[easy-to-miss]: leave empty logs (and their archives) untouched
sed -i 's|^  # skip-empty guard$|  [ -s "$log" ] \|\| continue|' /app/rotate.sh
grep -q '\[ -s "$log" \] || continue' /app/rotate.sh
# step: run tonight's rotation on /app/logs
/app/rotate.sh /app/logs
