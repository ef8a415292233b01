#!/bin/bash
# Verifier for port-quota-report-sh-to-python
. /tests/verdict.sh
fail() { echo "FAIL: $*"; exit 0; }

P=/app/bin/quota_report.py
[ -f "$P" ] || fail "$P missing"
( cd /app && sha256sum -c --quiet /tests/samples.sha256 ) || fail "samples were modified"
if grep -Eq 'subprocess|os\.system|os\.popen|os\.exec|os\.spawn|pty\.' "$P"; then fail "port must not shell out"; fi

W=$(mktemp -d)
cp /tests/cases/* "$W/" && cd "$W" || fail "setup"
errors=0
while IFS='|' read -r name units args; do
  if [ "$units" = iec ]; then
    env -u QUOTA_UNITS "$P" $args > "$name.out" 2> "$name.err"; rc=$?
  else
    QUOTA_UNITS=$units "$P" $args > "$name.out" 2> "$name.err"; rc=$?
  fi
  if [ "$rc" != "$(cat /tests/expected/$name.rc)" ]; then
    echo "case $name: exit $rc, expected $(cat /tests/expected/$name.rc)"; head -3 "$name.err"; errors=$((errors+1)); continue
  fi
  cmp -s "$name.out" /tests/expected/$name.out || { echo "case $name: stdout differs"; diff /tests/expected/$name.out "$name.out" | head -10; errors=$((errors+1)); }
  cmp -s "$name.err" /tests/expected/$name.err || { echo "case $name: stderr differs"; diff /tests/expected/$name.err "$name.err" | head -10; errors=$((errors+1)); }
done < /tests/cases.txt

"$P" only-one-arg > /dev/null 2>&1; rc=$?
[ $rc = 2 ] || { echo "wrong argument count: exit $rc, expected 2"; errors=$((errors+1)); }

cd / && rm -rf "$W"
[ $errors = 0 ] || fail "$errors mismatching case(s)"
echo PASS
verdict_pass
