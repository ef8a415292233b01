#!/bin/bash
set -e
# step: look at the certificates and their dates
ls -l /app/certs /app/certs/archive
# step[easy-to-miss]: cp -p keeps the modification time (plain cp stamps the copy with the current time)
cp -p /app/certs/shop.crt /app/certs/archive/shop-2024.crt
ls -l /app/certs/shop.crt /app/certs/archive
