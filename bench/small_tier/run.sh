#!/usr/bin/env bash
# The small-model tier's measurements with a real local model, resumable: run it again and finished
# attempts are reused (every step writes under runs/small-tier/).
#
#   LOCAL_MODEL=/path/to/local-model bench/small_tier/run.sh [difficulty|select|all]
#
# 1. difficulty: gen_0 with the model on every task of tasks/small/pool and tasks/small/heldout, K=4
#    attempts each (the model's configured temperature), into runs/small-tier/{pool,heldout}-manifest.json.
# 2. select: the evolution set from tasks/small/pool, medium-centred on the measured success rates.
# LOCAL_MODEL names the script that serves the model on 127.0.0.1:8081 (`local-model start`); without
# it the server must already answer there. PARALLEL (default 2) and N_CTX (default 16384) go to it.
set -euo pipefail
cd "$(dirname "$0")/../.."
export LITELLM_LOCAL_MODEL_COST_MAP=True HARBOR_TELEMETRY=0 LOCAL_MODEL_KEY=${LOCAL_MODEL_KEY:-local}
OUT=runs/small-tier
CONCURRENCY=${CONCURRENCY:-2}
mkdir -p "$OUT"
step=${1:-all}
if [ -n "${LOCAL_MODEL:-}" ]; then
  PARALLEL=${PARALLEL:-2} N_CTX=${N_CTX:-16384} "$LOCAL_MODEL" start 1.5b 8081
fi
if [ "$step" = difficulty ] || [ "$step" = all ]; then
  for part in pool heldout; do  # one manifest each: the selection reads only evolution tasks
    .venv/bin/modularrsi tasks difficulty "tasks/small/$part" --config bench/small_tier/agent.yaml -k 4 \
      -n "$CONCURRENCY" --env local --manifest "$OUT/$part-manifest.json" --out "$OUT/difficulty-$part"
  done
fi
if [ "$step" = select ] || [ "$step" = all ]; then
  .venv/bin/modularrsi tasks select tasks/small/pool --manifest "$OUT/pool-manifest.json" \
    --distribution medium-centered --count 30 --holdout-fraction 0 --allow-shortfall
fi
