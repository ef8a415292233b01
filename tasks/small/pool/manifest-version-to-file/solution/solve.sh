#!/bin/bash
set -e
# step: look at the manifest
cat /app/billing/manifest.json
# step[easy-to-miss]: write the bare version string, without JSON quotes
python3 -c 'import json; print(json.load(open("/app/billing/manifest.json"))["version"])' > /app/billing/VERSION
cat /app/billing/VERSION
