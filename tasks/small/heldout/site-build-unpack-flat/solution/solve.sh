#!/bin/bash
set -e
# step: see how the archive is laid out
tar -tzf /app/incoming/site-2.4.tar.gz
# step[easy-to-miss]: extract into /app/www without the top folder site-2.4/
mkdir -p /app/www
tar -xzf /app/incoming/site-2.4.tar.gz -C /app/www --strip-components=1
find /app/www
