#!/bin/bash
set -e
cd /app/shopcart

# step[easy-to-miss]: wrap the check so commits that cannot be imported are skipped (exit 125), not marked bad
cat > /tmp/bisect_check.sh <<'SH'
#!/bin/bash
python3 /app/check_totals.py /app/shopcart
rc=$?
if [ "$rc" -eq 2 ]; then exit 125; fi
exit "$rc"
SH
chmod +x /tmp/bisect_check.sh

# step: bisect between the good tag and main
git bisect start main v1.4.0
git bisect run /tmp/bisect_check.sh > /tmp/bisect.log 2>&1

# step: record the first bad commit
git rev-parse refs/bisect/bad > /app/first_bad_commit.txt
cat /app/first_bad_commit.txt

# step: end the bisect session and go back to main
git bisect reset
