#!/bin/bash
set -e
cd /app/storefront
# step: rename master to main
git branch -m master main
# step[easy-to-miss]: force-delete the unmerged branch
git branch -D old-experiment
git branch -v
