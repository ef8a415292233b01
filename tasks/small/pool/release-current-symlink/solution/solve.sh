#!/bin/bash
set -e
# step: remove dangling symlinks in shared/bin (-xtype l: a link whose target is missing)
find /app/site/shared/bin -xtype l -print -delete
# step[easy-to-miss]: repoint current without descending into the old release (-n)
cd /app/site
ln -sfn releases/2024.06.02 current
readlink /app/site/current
