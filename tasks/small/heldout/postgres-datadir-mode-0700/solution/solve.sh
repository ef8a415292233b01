#!/bin/bash
set -e
# step: create the directory and its parents
mkdir -p /app/pgdata/16/main
# step[easy-to-miss]: the data directory itself gets 0700 (mkdir's default is 0755)
chmod 0700 /app/pgdata/16/main
ls -ld /app/pgdata /app/pgdata/16 /app/pgdata/16/main
