"""A real model in the loop: gen_0 on easy pool tasks (K attempts) and one lane × one epoch of evolution, with
the same model in every role (agent, composer, analyst, editor, reviewer), through LiteLLM over HTTP.

It writes an evolve config (``modules: [LANE]``, ``epochs: 1``, integration off, no held-out eval) and runs
``modularrsi evolve`` on it in its own process group, killed at ``--deadline-min`` if it is still running
(the run directory keeps whatever finished; ``--resume`` continues it). The lane's epoch-0 sample *is* gen_0
with the real model on those tasks, so both halves of the measurement come from one run directory:

- gen_0: Acc, Pass@K, Pass^K, mean steps, tokens, wall time, invalid attempts, the malformed-reply rate (replies
  the Tool Use parser refused / agent replies) and how many refusals cite an invalid JSON escape;
- the lane: findings (culprits, non-culprits, dropped as task logic, invalid analyses), the culprit share,
  directions with their text, what the editor wrote, every gate outcome with its reason, and whether any
  culprit finding or direction names the invalid-escape parse weakness.

    local-model start                       # see shared/tools/local-model; prints the two settings below
    python bench/real_model.py --model openai/qwen2.5-coder-1.5b-instruct-q4_k_m \\
        --api-base http://127.0.0.1:8081/v1 [--tasks 10] [-k 3] [--max-turns 10] [--deadline-min 60]
    python bench/real_model.py --summarise runs/real-model        # re-read a run directory

Any non-empty key works for a local server (``--key-env``, default LOCAL_MODEL_KEY, set to "local" if unset).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
POOL = REPO / "tasks" / "pool"
ESCAPE = re.compile(r"invalid \\?\\?escape|\\escape", re.I)


def easy_tasks(count: int, only: list[str] | None = None) -> list[Path]:
    easy = sorted(p.parent for p in POOL.glob("*/task.toml") if 'difficulty = "easy"' in p.read_text())
    if only:
        easy = [p for p in easy if p.name in only]
    if len(easy) < count:
        raise SystemExit(f"{POOL}: only {len(easy)} easy tasks; ask for --tasks {len(easy)} or fewer")
    return easy[:count]


def config(args: argparse.Namespace) -> dict:
    link = {"model": args.model, "api_base": args.api_base, "api_key_env": args.key_env}
    roles = {"agent": {**link, "temperature": args.agent_temperature, "timeout_s": args.timeout,
                       "max_output_tokens": args.agent_max_tokens},
             "composer": {**link, "temperature": 0.0, "timeout_s": args.timeout, "max_output_tokens": 300},
             "analyst": {**link, "temperature": 0.0, "timeout_s": args.timeout, "max_output_tokens": 500},
             "editor": {**link, "temperature": 0.2, "timeout_s": args.timeout, "max_output_tokens": 1500},
             "reviewer": {**link, "temperature": 0.0, "timeout_s": args.timeout, "max_output_tokens": 200}}
    tasks = [str(p) for p in easy_tasks(args.tasks, args.only)]
    return {"tasks": tasks, "roles": roles, "modules": [args.lane], "epochs": 1,
            "k": args.k, "concurrency": args.concurrency, "max_turns": args.max_turns, "seed": args.seed,
            "timeout_multiplier": args.timeout_multiplier,
            "max_tokens": args.max_tokens, "max_directions": 1,
            "editor": {"max_turns": args.editor_turns, "retries": 0},
            "gates": {"anchors": 0, "max_evidence_tasks": 2}, "integration": {"enabled": False}}


def run(args: argparse.Namespace) -> tuple[float, str]:
    """Run the evolution; returns (wall seconds, how it ended)."""
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out.with_suffix(".yaml")
    path.write_text(yaml.safe_dump(config(args), sort_keys=False))
    env = {**os.environ, "HARBOR_TELEMETRY": "0", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.setdefault(args.key_env, "local")
    cmd = [sys.executable, "-m", "modularrsi.cli", "evolve", "--config", str(path), "--out", str(args.out)]
    started = time.monotonic()
    with open(args.out.with_suffix(".log"), "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=REPO, start_new_session=True)
        try:
            code = proc.wait(timeout=args.deadline_min * 60)
            ending = "finished" if code == 0 else f"exited {code} (see {log.name})"
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
            ending = f"stopped at the {args.deadline_min}-minute deadline"
    return time.monotonic() - started, ending


# ------------------------------------------------------------------------------------------------ summary
def read_json(path: Path) -> dict | list | None:
    return json.loads(path.read_text()) if path.is_file() else None


def reply_stats(sample_dir: Path) -> dict:
    """Agent replies, parse refusals, refusals citing an invalid escape, replies cut at the output cap (answered
    with Terminus-2's "you exceeded" message), over every trial of a sample."""
    from modularrsi.evolve.signals import signals_of

    turns = refused = escape = cut = 0
    for trial in sorted(p for p in (sample_dir / "trials").iterdir() if p.is_dir()):
        facts = signals_of(trial)
        turns, refused = turns + facts.turns, refused + facts.parse_errors
        for trajectory in trial.rglob("trajectory*.json"):
            cut += trajectory.read_text(errors="replace").count("were performed because you exceeded")
            escape += sum(bool(ESCAPE.search(json.dumps(s))) for s in (read_json(trajectory) or {}).get("steps", [])
                          if "parse" in json.dumps(s).lower())
    return {"agent_replies": turns, "parse_refusals": refused, "malformed_rate": refused / turns if turns else None,
            "refusals_citing_invalid_escape": escape, "replies_cut_at_the_output_cap": cut}


def finished_attempts(sample_dir: Path) -> dict:
    """What the finished trials of an interrupted sample say (no metrics file is written until it ends),
    read as the runner reads them: Acc over the valid attempts (an invalid one is counted apart, never a
    0), turns, tokens, wall time per attempt, and how the episodes ended."""
    from modularrsi.rollouts.runner import attempt_from_result, read_finished

    results = [r for r in map(read_finished, sorted(p.parent for p in (sample_dir / "trials").glob("*/result.json")))
               if r is not None]
    if not results:
        return {"attempts": 0}
    attempts = [attempt_from_result(r, 0) for r in results]
    valid = [a for a in attempts if a.invalid_reason is None]
    endings = Counter(((r.agent_result.metadata or {}) if r.agent_result else {}).get("ending", "?") for r in results)
    return {"attempts": len(attempts), "invalid_attempts": len(attempts) - len(valid),
            "tasks_touched": len({a.task for a in attempts}),
            "acc_of_finished": sum(a.passed for a in valid) / len(valid) if valid else None,
            "mean_turns": sum(a.steps for a in attempts) / len(attempts),
            "input_tokens": sum(a.input_tokens for a in attempts),
            "output_tokens": sum(a.output_tokens for a in attempts),
            "mean_wall_s": sum(a.wall_s for a in attempts) / len(attempts),
            "max_wall_s": max(a.wall_s for a in attempts), "endings": dict(endings)}


def gen0(run_dir: Path, lane: str) -> dict:
    sample = read_json(run_dir / "lanes" / lane / "epoch_0" / "sample.json")
    started = sorted(p.parent for p in (run_dir / "samples").glob("*/trials"))  # the lane's first sample, running
    if sample is None and not started:
        return {"status": "no sample started"}
    sample_dir = run_dir / sample["run"] if sample else started[0]
    results = read_json(sample_dir / "results.json")
    if results is None:
        partial = finished_attempts(sample_dir)
        return {"status": f"sample unfinished ({partial['attempts']} attempts finished)", **partial,
                **reply_stats(sample_dir)}
    o = results["overall"]
    keep = ("tasks", "attempts", "k", "acc", "pass_at_k", "pass_hat_k", "mean_steps", "input_tokens",
            "output_tokens", "wall_s", "invalid_attempts", "all_pass_share", "mixed_share", "all_fail_share")
    return {"status": "done", **{k: o[k] for k in keep}, **reply_stats(sample_dir)}


def lane_summary(run_dir: Path, lane: str) -> dict:
    epoch = run_dir / "lanes" / lane / "epoch_0"
    findings = [json.loads(line) for line in (epoch / "findings.jsonl").read_text().splitlines()
                if line.strip()] if (epoch / "findings.jsonl").is_file() else []
    culprits = [f for f in findings if f["is_culprit"]]
    analysed = [f for f in findings if f.get("analyst") != "rules"]
    directions = (read_json(epoch / "directions.json") or {}).get("directions", [])
    history = run_dir / "history.jsonl"
    changes = [c for c in (json.loads(line) for line in (history.read_text().splitlines() if history.is_file() else [])
                           if line.strip()) if c["lane"] == lane and c["epoch"] == 0]
    named = [f for f in culprits if ESCAPE.search(f["divergence"] + f["suggested_change"]) or "escape" in
             (f["divergence"] + f["suggested_change"]).lower()]
    return {
        "findings": len(findings), "analysed_by_model": len(analysed), "culprits": len(culprits),
        "culprit_share": len(culprits) / len(analysed) if analysed else None,
        "invalid_analyses": [f"{f['task']}: {f['parse_error']}" for f in findings if f.get("parse_error")],
        "dropped_as_task_logic": [f"{f['task']}: {f['dropped']}" for f in findings if f.get("dropped")],
        "culprit_findings": [{k: f[k] for k in ("task", "mechanism", "divergence", "suggested_change")}
                             for f in culprits],
        "escape_weakness_named_by": [f["task"] for f in named],
        "directions": [{k: d[k] for k in ("id", "mechanism", "summary", "tasks", "vote")} for d in directions],
        "changes": [{"outcome": c["outcome"], "rejected_by": c.get("rejected_by"), "reason": c.get("reason", ""),
                     "files": c.get("files", []), "description": c.get("description", ""),
                     "diff_head": "\n".join(c.get("diff", "").splitlines()[:40])} for c in changes if c],
        "epoch_done": (epoch / "outcome.json").is_file(),
    }


def summarise(run_dir: Path, lane: str, wall_s: float | None = None, ending: str = "") -> dict:
    summary = {"run_dir": str(run_dir), "ending": ending, "wall_s": wall_s, "gen0": gen0(run_dir, lane),
               "lane": lane_summary(run_dir, lane), "config": yaml.safe_load(run_dir.with_suffix(".yaml").read_text())
               if run_dir.with_suffix(".yaml").is_file() else None}
    (run_dir / "real_model_summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def show(summary: dict) -> None:
    g, lane = summary["gen0"], summary["lane"]
    print(f"run: {summary['run_dir']} ({summary['ending'] or 'summarised'}; wall {summary['wall_s'] or 0:.0f} s)")
    print("\ngen_0 with the real model:")
    for key, value in g.items():
        print(f"  {key}: {round(value, 3) if isinstance(value, float) else value}")
    print("\nlane, epoch 0:")
    for key in ("findings", "analysed_by_model", "culprits", "culprit_share", "epoch_done"):
        print(f"  {key}: {lane[key]}")
    for key in ("invalid_analyses", "dropped_as_task_logic", "culprit_findings", "directions", "changes"):
        print(f"  {key}: {len(lane[key])}")
        for item in lane[key]:
            print("    - " + (json.dumps(item)[:600] if isinstance(item, dict) else item[:300]))
    found = lane["escape_weakness_named_by"]
    named = "yes, " + ", ".join(found) if found else "no"
    print(f"\ninvalid-escape parse weakness named by a culprit finding: {named}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="openai/qwen2.5-coder-1.5b-instruct-q4_k_m")
    parser.add_argument("--api-base", default="http://127.0.0.1:8081/v1")
    parser.add_argument("--key-env", default="LOCAL_MODEL_KEY")
    parser.add_argument("--tasks", type=int, default=10, help="easy pool tasks (first N by name)")
    parser.add_argument("-k", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="these easy tasks only (by name)")
    parser.add_argument("--timeout-multiplier", type=float, default=1.0, help="scales task time limits")
    parser.add_argument("--lane", default="tool_use")
    parser.add_argument("--max-turns", type=int, default=10)
    parser.add_argument("--editor-turns", type=int, default=8)
    parser.add_argument("--agent-temperature", type=float, default=0.7)
    parser.add_argument("--agent-max-tokens", type=int, default=1024, help="cap on one agent reply (uncapped, "
                        "the 1.5B model once generated for the whole 600 s of an episode in its first reply)")
    parser.add_argument("--timeout", type=float, default=600, help="per-call timeout, seconds (slow local model)")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-tokens", type=int, default=5_000_000, help="token cap of the whole run")
    parser.add_argument("--deadline-min", type=float, default=60)
    parser.add_argument("--out", type=Path, default=REPO / "runs" / "real-model")
    parser.add_argument("--summarise", type=Path, help="only summarise this run directory")
    args = parser.parse_args()
    if args.summarise:
        show(summarise(args.summarise, args.lane))
        return
    wall, ending = run(args)
    show(summarise(args.out, args.lane, wall, ending))


if __name__ == "__main__":
    main()
