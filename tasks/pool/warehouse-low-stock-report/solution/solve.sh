#!/bin/bash
set -e
cd /app

# step: look at the snapshot and catalogue structure
jq '.items[0]' data/stock/ber.json
jq '.[0]' data/catalog.json
mkdir -p reports

# step: sum qty - reserved per sku over all warehouse files
jq -s '[.[].items[]] | group_by(.sku) | map({key: .[0].sku, value: (map(.qty - .reserved) | add)}) | from_entries' \
  data/stock/*.json > /tmp/available.json

# step[easy-to-miss]: join with the catalogue (missing sku = 0), skip discontinued products, keep those below reorder level
jq --slurpfile av /tmp/available.json '
  [ .[] | select(.discontinued | not)
        | {sku, name, available: ($av[0][.sku] // 0), reorder_level}
        | select(.available < .reorder_level) ]
  | sort_by(.sku)' data/catalog.json > reports/low_stock.json
