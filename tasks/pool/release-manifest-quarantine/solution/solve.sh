#!/bin/bash
set -e
cd /app/release
mkdir -p /app/quarantine /tmp/verify
# step: check the manifest entries (OK / FAILED / MISSING)
: > /tmp/verify/report
while IFS= read -r line; do
  [ -n "$line" ] || continue
  sum="${line%% *}"
  path="${line:66}"
  if [ ! -e "$path" ]; then
    echo "MISSING $path" >> /tmp/verify/report
  elif [ "$(sha256sum < "$path" | cut -d' ' -f1)" = "$sum" ]; then
    echo "OK $path" >> /tmp/verify/report
  else
    echo "FAILED $path" >> /tmp/verify/report
  fi
  echo "$path" >> /tmp/verify/listed
done < SHA256SUMS
# step: quarantine the files that failed verification
grep '^FAILED ' /tmp/verify/report | cut -d' ' -f2- | while IFS= read -r p; do
  mkdir -p "/app/quarantine/$(dirname "$p")"
  mv "$p" "/app/quarantine/$p"
done
LC_ALL=C sort -k2 /tmp/verify/report > /app/verify-report.txt
# step[easy-to-miss]: files not in the manifest (hidden ones too) are UNLISTED and quarantined as well
find . -type f ! -path ./SHA256SUMS -printf '%P\n' | LC_ALL=C sort > /tmp/verify/present
LC_ALL=C sort /tmp/verify/listed > /tmp/verify/listed.sorted
LC_ALL=C comm -23 /tmp/verify/present /tmp/verify/listed.sorted | while IFS= read -r p; do
  echo "UNLISTED $p" >> /tmp/verify/report
  mkdir -p "/app/quarantine/$(dirname "$p")"
  mv "$p" "/app/quarantine/$p"
done
LC_ALL=C sort -k2 /tmp/verify/report > /app/verify-report.txt
cat /app/verify-report.txt
