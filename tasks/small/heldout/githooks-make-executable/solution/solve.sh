#!/bin/bash
set -e
# step: look at the current modes
ls -l /app/devtools/githooks
# step[easy-to-miss]: only the three real hooks, not the .sample files or the README
chmod 0755 /app/devtools/githooks/pre-commit /app/devtools/githooks/commit-msg /app/devtools/githooks/pre-push
ls -l /app/devtools/githooks
