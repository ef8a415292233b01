#!/bin/bash
# Verifier for cronspec-day-of-week-semantics
. /tests/verdict.sh
fail() { echo "FAIL: $*"; exit 0; }

W=$(mktemp -d)
cp -a /app/cronspec "$W/repo" || fail "copy"
cp /tests/test_days_hidden.py /tests/test_fields_orig.py /tests/test_schedule_orig.py "$W/repo/tests/"
touch "$W/repo/tests/__init__.py"
cd "$W/repo" || fail "cd"
verdict_python --timeout 120 --path . -m unittest tests.test_fields_orig tests.test_schedule_orig tests.test_days_hidden > "$W/t.log" 2>&1
rc=$?
tail -40 "$W/t.log"
[ $rc = 0 ] || fail "tests fail"
verdict_python --timeout 120 -m unittest discover -s tests -t . > "$W/own.log" 2>&1 || { tail -20 "$W/own.log"; fail "repository tests fail"; }

cd / && rm -rf "$W"
echo PASS
verdict_pass
