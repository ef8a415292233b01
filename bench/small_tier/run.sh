#!/usr/bin/env bash
# The small-model tier's measurements with a real local model, resumable across sessions and machines:
# run it again and finished work is reused. Trials go under runs/small-tier/ (kept on this machine only);
# the measured success rates go into bench/small_tier/results/{pool,heldout}-manifest.json task by task
# as each task's attempts finish - commit those files and another machine goes on from them.
#
#   bench/small_tier/run.sh [difficulty|select|mechanisms|evolve|heldout|summary|all] [TASK_DIR...]
#
# 1. difficulty: gen_0 with the model on every task of tasks/small/pool and tasks/small/heldout, K=4
#    attempts each (the model's configured temperature). TASK_DIRs given after the step are measured
#    first (e.g. tasks just added), then the rest.
# 2. select: the evolution set from tasks/small/pool and the held-out evaluation set from tasks/small/heldout,
#    each medium-centred on the measured success rates.
# 3. mechanisms: the real ground truth - gen_0 against gen_0 + each catalogue mechanism that could matter
#    for this model, on the evolution set, K=3, paired (bench/mechanisms.py; gen_0's side is the catalogue
#    arm's epoch-0 sample once it exists, so run it after `evolve` has sampled); the table into
#    bench/small_tier/results/mechanisms.txt (and .json, the ground truth the summary judges by).
# 4. evolve: the arms (bench/small_tier/evolve-catalogue.yaml, then evolve-llm{,-blocks,-guided,-replies}.yaml and
#    evolve-catalogue-context.yaml, which start from the catalogue arm's draws, then evolve-llm-context.yaml, from
#    catalogue-context's, and evolve-llm-context-2.yaml, from llm-context's), each with its held-out evaluation
#    against gen_0; each arm's eval.json and what it promoted into results/. ARMS="a b" runs only those arms
#    (evolve; heldout, whose default is FAMILY).
# 4b. heldout (not part of all): after held-out tasks were added and measured (difficulty TASK_DIR..., select),
#    each arm's frozen library against gen_0 again, on the evaluation set as selected now, into
#    results/evolve-<arm>/heldout-eval.json (the arm's first evaluation stays in its eval.json); with the seed of
#    the arm's first evaluation and `eval --share-from` every evaluation made so far, so only attempts no
#    evaluation has made are drawn (gen_0's side once for all arms, the first evaluation's tasks not again).
# 5. summary: the arms side by side against the ground truth (bench/small_tier/summary.py) into
#    results/summary.md, with each arm's results/evolve-<arm>/arm.json.
# Every step is resumable; a step whose inputs are missing says so. Across machines: the manifests carry the
# difficulty step, and bench/small_tier/carry.py the run directories of the others - `carry.py save NAME...`
# archives runs/small-tier/NAME into results/carry/ (commit it), and every step here first restores the
# archived runs this machine does not have, so `--resume` goes on where the last machine stopped.
# The server: when nothing answers on 127.0.0.1:8081, bench/small_tier/serve.py is started with the
# interpreter of `local-model fetch`'s venv (LOCAL_MODEL_HOME, default ~/.cache/local-model): 4 slots,
# context-lookup speculative decoding. CONCURRENCY (default 2, the fastest measured on 2 cores: docs/benchmarks.md)
# attempts run at once; the model steps (difficulty, mechanisms, evolve) take a lock, so two of them never share
# the slots. SMALL_TIER_OUT, SMALL_TIER_RESULTS, SMALL_TIER_AGENT and SMALL_TIER_PORT put the runs, the results,
# the agent's settings and the server elsewhere (the tests run the held-out step against the fake server so; the
# evolve step's configs name their own server).
set -euo pipefail
cd "$(dirname "$0")/../.."
export LITELLM_LOCAL_MODEL_COST_MAP=True HARBOR_TELEMETRY=0 LOCAL_MODEL_KEY=${LOCAL_MODEL_KEY:-local}
OUT=${SMALL_TIER_OUT:-runs/small-tier}
RESULTS=${SMALL_TIER_RESULTS:-bench/small_tier/results}
AGENT=${SMALL_TIER_AGENT:-bench/small_tier/agent.yaml}
PORT=${SMALL_TIER_PORT:-8081}
CONCURRENCY=${CONCURRENCY:-2}
# the held-out family, fixed before its results (docs/benchmarks.md): the arms `heldout` evaluates on the
# re-selected set, one family of tests that `summary` Holm-adjusts (a member not evaluated yet counts at p = 1)
FAMILY="catalogue-context llm-context-2"
HOME_DIR=${LOCAL_MODEL_HOME:-$HOME/.cache/local-model}
mkdir -p "$OUT" "$RESULTS"
.venv/bin/python bench/small_tier/carry.py restore --runs "$OUT" --carry "$RESULTS/carry"
step=${1:-all}
first=("${@:2}")
if [ "$step" != select ] && [ "$step" != summary ]; then
  # one model step at a time: more conversations than the server's 4 slots evict each other's cached prompt
  # prefixes, and every evicted turn re-reads its whole prompt (a 5,000-token prompt is over a minute here)
  exec 9>"$OUT/.model.lock"
  flock -n 9 || { echo "another run.sh step is using the model server ($OUT/.model.lock): wait for it to end" >&2; exit 1; }
  model_step=1
fi
# select and summary read measured results only: no server (a machine without the model renders the summary)
if [ -n "${model_step:-}" ] && ! curl -fsS http://127.0.0.1:$PORT/v1/models >/dev/null 2>&1; then
  # 9>&-: the server outlives this step and must not hold its lock
  nohup "$HOME_DIR/venv/bin/python" bench/small_tier/serve.py --port "$PORT" > "$OUT/server.log" 2>&1 9>&- &
  for _ in $(seq 1 120); do curl -fsS http://127.0.0.1:$PORT/v1/models >/dev/null 2>&1 && break; sleep 1; done
  curl -fsS http://127.0.0.1:$PORT/v1/models >/dev/null || { echo "server did not start; see $OUT/server.log" >&2; exit 1; }
fi
if [ "$step" = difficulty ] || [ "$step" = all ]; then
  measure() {  # PART WHAT...: one manifest per part - the selection reads only evolution tasks
    local part=$1; shift
    .venv/bin/modularrsi tasks difficulty "$@" --config "$AGENT" -k 4 -n "$CONCURRENCY" \
      --env local --manifest "$RESULTS/$part-manifest.json" --out "$OUT/difficulty-$part"
  }
  for part in pool heldout; do
    mine=()
    for task in "${first[@]}"; do [ "$(basename "$(dirname "$task")")" = "$part" ] && mine+=("$task"); done
    [ ${#mine[@]} -eq 0 ] || measure "$part" "${mine[@]}"
  done
  for part in pool heldout; do measure "$part" "tasks/small/$part"; done
fi
if [ "$step" = select ] || [ "$step" = all ]; then
  .venv/bin/modularrsi tasks select tasks/small/pool --manifest "$RESULTS/pool-manifest.json" \
    --distribution medium-centered --count 20 --holdout-fraction 0 --allow-shortfall
  # the held-out evaluation set (the arms' eval_manifest), by the same rule; 40 tasks since the ground truth's
  # right mechanism (forget_refused: 5 of 20 tasks up, none down) gives the sign test power 0.38 on 20 tasks
  # and 0.96 on 40 (modularrsi.evolve.gates.stats.sign_test_power). An arm evaluates on the selection its run
  # reaches its evaluation with: select again only once no arm is on its way there (then run.sh heldout)
  .venv/bin/modularrsi tasks select tasks/small/heldout --manifest "$RESULTS/heldout-manifest.json" \
    --distribution medium-centered --count 40 --holdout-fraction 0 --allow-shortfall
fi
if [ "$step" = mechanisms ] || [ "$step" = all ]; then
  # the order is the order of use, each variant up to an hour of the model: the mechanism an arm promoted first,
  # then those aimed at what this model's attempts show - answering the parser's feedback with the same refused
  # reply to the end (forget_refused takes that reply out of the history), repeated replies, the turn limit -,
  # then the completion checks and the observation window every ground truth must have, and last the variants
  # of the parser's feedback (retry_same_prompt, in the catalogue's harmful set, sends the prompt again instead)
  # gen_0's side: the catalogue arm's epoch-0 sample when it exists (the draws the evolution saw; not paid twice)
  sample=$(.venv/bin/python -c 'import json, sys; print(json.load(open(sys.argv[1]))["run"])' \
    "$OUT/evolve-catalogue/lanes/tool_use/epoch_0/sample.json" 2>/dev/null || true)
  gen0=(); [ -n "$sample" ] && [ -f "$OUT/evolve-catalogue/$sample/results.json" ] && \
    gen0=(--gen0-from "$OUT/evolve-catalogue/$sample")
  # and first, each LLM arm's frozen library that holds a function of the model's own (promoted, kept): the
  # catalogue has no row for it, so its ground truth is that library against gen_0 on the same draws
  own=()
  for dir in "$OUT"/evolve-*; do
    .venv/bin/python -c 'import sys; from pathlib import Path; from modularrsi.evolve.history import History
run = Path(sys.argv[1])
try:
    changes = History(run / "history.jsonl").changes.values() if (run / "frozen").is_dir() else []
except ValueError as exc:
    sys.exit(f"{run}/history.jsonl: unreadable ({str(exc).splitlines()[0]}): its library is not benched")
sys.exit(not any(c.outcome == "promoted" and c.fate == "kept" and c.editor.startswith("llm-editor") for c in changes))' \
      "$dir" && own+=(--generation "${dir##*/evolve-}=$dir/frozen")
  done
  .venv/bin/python bench/mechanisms.py --config "$AGENT" --tasks tasks/small/pool \
    --manifest "$RESULTS/pool-manifest.json" -k 3 -n "$CONCURRENCY" --env local --out "$OUT/mechanisms" "${gen0[@]}" \
    "${own[@]}" \
    --only json_repair forget_refused loop_guard task_reminder evidence_check requirements_recap tail_window \
      retry_same_prompt quoted_feedback lenient_parse \
    --json "$RESULTS/mechanisms.json" --text "$RESULTS/mechanisms.txt"
fi
if [ "$step" = evolve ] || [ "$step" = all ]; then
  # the LLM arms share the catalogue arm's draws (share_from); llm-blocks and llm-guided are the LLM arm with its
  # editor's code in fenced blocks rather than JSON strings, and with no tool loop at all (editor.format);
  # llm-replies is llm-guided with recorded replies (editor.replies)
  for arm in ${ARMS:-catalogue llm llm-blocks llm-guided llm-replies catalogue-context llm-context llm-context-2}; do
    dir="$OUT/evolve-$arm"
    # a started run goes on with its own config.yaml (--resume takes no --config)
    if [ -f "$dir/config.yaml" ]; then where=(--resume "$dir"); else where=(--config "bench/small_tier/evolve-$arm.yaml" --out "$dir"); fi
    .venv/bin/modularrsi evolve "${where[@]}"
    mkdir -p "$RESULTS/evolve-$arm"
    for f in eval/eval.json history.jsonl; do [ -f "$dir/$f" ] && cp "$dir/$f" "$RESULTS/evolve-$arm/"; done
  done
fi
if [ "$step" = heldout ]; then
  # each arm's frozen library against gen_0 on the held-out evaluation set as selected now (after held-out tasks
  # were added: difficulty TASK_DIR..., then select), paired; an arm that changed nothing is gen_0 and is skipped
  # (the arms of FAMILY unless ARMS names others: an arm evaluated here joins the summary's family)
  for arm in ${ARMS:-$FAMILY}; do
    dir="$OUT/evolve-$arm" where="$OUT/heldout-$arm"
    changed=$(.venv/bin/python -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["changed_modules"]))' \
      "$dir/frozen.json" 2>/dev/null || echo none)
    case $changed in none) echo "evolve-$arm: no frozen library yet (run.sh evolve)"; continue ;;
                     0) echo "evolve-$arm: its frozen library is gen_0 (nothing promoted): not evaluated"; continue ;; esac
    if [ -f "$where/config.yaml" ]; then how=(--resume "$where"); else
      # the agent's settings plus the held-out selection (a manifest is a setting, not a flag of eval); the seed
      # of the arm's first evaluation, so that the attempts made there, and gen_0's side made for another arm,
      # are taken rather than drawn again (--share-from: the same generation, draws and task content only)
      seed=$(.venv/bin/python -c 'import sys, yaml; from modularrsi.evolve.seeds import derived_seed
print(derived_seed((yaml.safe_load(open(sys.argv[1])) or {}).get("seed", 0), "eval"))' "$dir/config.yaml" 2>/dev/null \
        || { echo "evolve-$arm: $dir/config.yaml unreadable: seed 0, so no earlier evaluation's attempts are taken" >&2
             echo 0; })
      shared=()
      for other in "$OUT"/evolve-*/eval "$OUT"/heldout-*; do
        [ -f "$other/baseline/lock.json" ] && [ "$other" != "$where" ] && shared+=(--share-from "$other")
      done
      { cat "$AGENT"
        echo "manifest: $RESULTS/heldout-manifest.json"; } > "$where.yaml"
      how=(--config "$where.yaml" --generation "$dir/frozen" --tasks tasks/small/heldout --disjoint-from "$dir" \
           -k 3 -n "$CONCURRENCY" --env local --seed "$seed" --out "$where")
      how+=("${shared[@]}")
    fi
    .venv/bin/modularrsi eval "${how[@]}"
    mkdir -p "$RESULTS/evolve-$arm"
    cp "$where/eval.json" "$RESULTS/evolve-$arm/heldout-eval.json"
  done
fi
if [ "$step" = summary ] || [ "$step" = all ]; then
  .venv/bin/python bench/small_tier/summary.py --arm "llm=$OUT/evolve-llm" --arm "llm-blocks=$OUT/evolve-llm-blocks" \
    --arm "llm-guided=$OUT/evolve-llm-guided" --arm "llm-replies=$OUT/evolve-llm-replies" \
    --arm "catalogue=$OUT/evolve-catalogue" --arm "catalogue-context=$OUT/evolve-catalogue-context" \
    --arm "llm-context=$OUT/evolve-llm-context" --arm "llm-context-2=$OUT/evolve-llm-context-2" \
    --mechanisms "$RESULTS/mechanisms.json" --results "$RESULTS" --family $FAMILY
fi
