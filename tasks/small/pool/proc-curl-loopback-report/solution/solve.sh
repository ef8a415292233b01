#!/bin/bash
set -e
cd /app
# step: start the service in the background and wait for it
nohup python3 /app/report_server.py > /tmp/report_server.log 2>&1 &
for i in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:8093/ && break; sleep 0.1; done
# step[easy-to-miss]: fetch the ops report with the token header
curl -sf -H 'X-Team-Token: ops-2291' 'http://127.0.0.1:8093/report?team=ops' -o /app/ops_report.json
cat /app/ops_report.json
