#!/bin/bash
set -e
# step: find the server lines of the backend
grep -n 'server web' /app/etc/haproxy/haproxy.cfg
# step[easy-to-miss]: comment out the web1 line only (web10 and web11 also contain "web1")
sed -i 's/^\( *server web1 10\.0\.3\.11:8080 check\)$/#\1/' /app/etc/haproxy/haproxy.cfg
grep -n 'server web' /app/etc/haproxy/haproxy.cfg
