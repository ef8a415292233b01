#!/bin/bash
set -e
# step: compare the two copies and their inode numbers
ls -li /app/srv/geoip/GeoLite2-City.mmdb /app/srv/analytics/data/GeoLite2-City.mmdb
# step[easy-to-miss]: replace the existing copy by a hard link (ln -f; plain ln says "File exists")
ln -f /app/srv/geoip/GeoLite2-City.mmdb /app/srv/analytics/data/GeoLite2-City.mmdb
ls -li /app/srv/geoip/GeoLite2-City.mmdb /app/srv/analytics/data/GeoLite2-City.mmdb
