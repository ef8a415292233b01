#!/bin/bash
# Verifier for confkit-escaped-hash-comment-bug
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
fail() { echo "FAIL: $*"; exit 0; }

W=$(mktemp -d)
cp -a /app/confkit "$W/repo" || fail "copy"
cp /tests/test_parser_orig.py "$W/repo/tests/test_parser_orig.py"
cp /tests/test_escapes_hidden.py "$W/repo/tests/test_escapes_hidden.py"
touch "$W/repo/tests/__init__.py"
cd "$W/repo" || fail "cd"
python3 -m unittest -v tests.test_parser_orig tests.test_escapes_hidden 2>&1 | tail -30
python3 -m unittest tests.test_parser_orig tests.test_escapes_hidden > /dev/null 2>&1 || fail "tests fail"
# the repository's own test suite must still pass
python3 -m unittest discover -s tests -t . > "$W/own.log" 2>&1 || { tail -20 "$W/own.log"; fail "repository tests fail"; }

cd / && rm -rf "$W"
echo PASS
echo 1 > /logs/verifier/reward.txt
