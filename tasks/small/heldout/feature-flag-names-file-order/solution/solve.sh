#!/bin/bash
set -e
# step: look at the flags object
jq '.flags' /app/config/flags.json
# step[easy-to-miss]: write the keys of flags raw, in file order (keys_unsorted, not keys)
jq -r '.flags | keys_unsorted[]' /app/config/flags.json > /app/flag_names.txt
cat /app/flag_names.txt
