#!/bin/bash
set -e
# step: look at the manifest
jq '{name, version}' /app/package.json
# step: write name@version
jq -r '"\(.name)@\(.version)"' /app/package.json > /app/release.txt
cat /app/release.txt
