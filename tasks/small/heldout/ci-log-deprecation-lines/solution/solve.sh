#!/bin/bash
set -e
# step: see how the word is spelled in the log
grep -ni 'deprecated' /app/ci/build-1432.log
# step[easy-to-miss]: case-insensitive match, lines unchanged and in order
grep -i 'deprecated' /app/ci/build-1432.log > /app/ci/deprecations.txt
cat /app/ci/deprecations.txt
