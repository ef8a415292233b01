#!/bin/bash
set -e
# step: see which sites are enabled
ls -l /app/nginx/sites-enabled
# step[easy-to-miss]: link (not copy) the shop site with its absolute path as the target
ln -s /app/nginx/sites-available/shop.conf /app/nginx/sites-enabled/shop.conf
readlink /app/nginx/sites-enabled/shop.conf
