#!/bin/bash
set -e
# step[easy-to-miss]: compact order-created.json into the new file, keeping the original
jq -c . /app/hooks/order-created.json > /app/hooks/order-created.min.json
# step: the same for order-paid.json
jq -c . /app/hooks/order-paid.json > /app/hooks/order-paid.min.json
cat /app/hooks/order-created.min.json /app/hooks/order-paid.min.json
