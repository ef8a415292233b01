#!/bin/bash
set -e
cd /app/recipes
# step[easy-to-miss]: create the repository on a branch named main
git init -q -b main
git config user.name "Dana Cook"
git config user.email "dana.cook@kitchen.example"
# step: commit everything
git add -A
git commit -q -m "Initial import"
git log --format='%h %an <%ae> %s'
