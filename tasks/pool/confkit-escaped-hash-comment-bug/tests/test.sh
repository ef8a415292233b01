#!/bin/bash
# Verifier for confkit-escaped-hash-comment-bug
. /tests/verdict.sh
fail() { echo "FAIL: $*"; exit 0; }

W=$(mktemp -d)
cp -a /app/confkit "$W/repo" || fail "copy"
cp /tests/test_parser_orig.py "$W/repo/tests/test_parser_orig.py"
cp /tests/test_escapes_hidden.py "$W/repo/tests/test_escapes_hidden.py"
touch "$W/repo/tests/__init__.py"
cd "$W/repo" || fail "cd"
verdict_python --path . -m unittest -v tests.test_parser_orig tests.test_escapes_hidden > "$W/t.log" 2>&1
rc=$?
tail -30 "$W/t.log"
[ $rc = 0 ] || fail "tests fail"
# the repository's own test suite must still pass
verdict_python -m unittest discover -s tests -t . > "$W/own.log" 2>&1 || { tail -20 "$W/own.log"; fail "repository tests fail"; }

cd / && rm -rf "$W"
echo PASS
verdict_pass
