#!/bin/bash
set -e
# step: drop the debug section and lower the log level
cd /app/config
jq 'del(.debug) | .logging.level = "warn"' settings.json > settings.json.tmp
mv settings.json.tmp settings.json
# step[easy-to-miss]: set the port as a JSON number
cd /app/config
jq '.server.port = 9090' settings.json > settings.json.tmp
mv settings.json.tmp settings.json
cat settings.json
