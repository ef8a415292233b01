#!/bin/bash
set -e
# step: flatten the items of all warehouses
jq -c '[.warehouses[].items[]]' /app/data/inventory.json > /tmp/items.json
# step[easy-to-miss]: sum qty per SKU across warehouses
jq 'group_by(.sku) | map({key: .[0].sku, value: (map(.qty) | add)}) | from_entries' /tmp/items.json \
  > /app/stock_by_sku.json
cat /app/stock_by_sku.json
