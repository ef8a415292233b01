#!/bin/bash
sqlite3 /app/data/shop.db .dump | gzip > /app/backups/shop.sql.gz
