#!/bin/bash
set -e
# step: look at the docroot and the brand directory
ls -l /app/www/html /app/www/brand
# step[easy-to-miss]: a relative target, stored as written (resolved from /app/www/html)
ln -s ../brand/favicon.ico /app/www/html/favicon.ico
ls -l /app/www/html
