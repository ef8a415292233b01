#!/bin/bash
set -e
# step: find the line-length settings of the linters
grep -n 'line.length' /app/ledgerly/setup.cfg
# step[easy-to-miss]: change only flake8's max-line-length (pycodestyle and isort keep 79)
sed -i 's/^max-line-length = 79$/max-line-length = 120/' /app/ledgerly/setup.cfg
grep -n 'line.length' /app/ledgerly/setup.cfg
