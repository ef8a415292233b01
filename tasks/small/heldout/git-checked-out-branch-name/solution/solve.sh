#!/bin/bash
set -e
cd /app/inventory-api
# step: list the branches (the current one is marked with *)
git branch
# step[easy-to-miss]: write only the current branch's bare name
git rev-parse --abbrev-ref HEAD > /app/branch.txt
cat /app/branch.txt
