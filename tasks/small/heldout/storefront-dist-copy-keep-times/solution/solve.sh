#!/bin/bash
set -e
# step: look at the build output and its dates
ls -lR /app/frontend/dist
# step[easy-to-miss]: copy the tree keeping the modification times (-p)
cp -rp /app/frontend/dist /app/www/shop
ls -lR /app/www/shop
