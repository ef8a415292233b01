#!/bin/bash
set -e
# step: list the services
jq -r '.services | keys[]' /app/deploy/stack.json
# step[easy-to-miss]: service and image, skipping services without an image, sorted by name
jq -r '.services | to_entries | sort_by(.key)[] | select(.value.image != null) | "\(.key) \(.value.image)"' \
  /app/deploy/stack.json > /app/images.txt
cat /app/images.txt
