#!/bin/bash
set -e
# step: find the replicaCount lines
grep -n 'replicaCount' /app/charts/catalog-api/values.yaml
# step[easy-to-miss]: change only the top-level line (anchored at the line start), not worker.replicaCount
sed -i 's/^replicaCount: 1$/replicaCount: 3/' /app/charts/catalog-api/values.yaml
grep -n 'replicaCount' /app/charts/catalog-api/values.yaml
