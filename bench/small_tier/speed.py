"""Attempts per hour of the local model at concurrency 1, 2 and 4 on the same tasks, resumable.

    python bench/small_tier/speed.py [--tasks T...] [-k 1] [--levels 1 2 4] [--spec ngram_mod none]
        [--threads 2 1] [--temperature 0] [--out runs/small-tier/speed]
    python bench/small_tier/speed.py --report RUN_DIR...   # the table of finished levels, nothing run

One ``modularrsi run`` of gen_0 per server setting and concurrency level on the same small-tier tasks (K
attempts each, the settings of ``bench/small_tier/agent.yaml``). For each ``--spec`` (speculative decoding of
``bench/small_tier/serve.py``, or ``none``; ``ngram_mod:16`` drafts at most 16 tokens at once) it starts that
server on 127.0.0.1:8081 with as many slots as the highest level, runs the levels, and stops it; with ``--spec
external`` it uses whatever server already answers there. ``--threads`` sets the server's CPU threads (each
value its own server; generation is memory-bound, and on a shared 2-core machine a second thread waits on the
other process). Each run directory is ``OUT/<spec>/c<level>`` (``-t<threads>`` after the spec when
``--threads`` is given, ``-T<temperature>`` when ``--temperature`` is: a greedy level never reuses a sampled
one); running again finishes an interrupted run and reuses the finished ones. Printed per run, from the trials
themselves (``replies.py``): attempts per hour of wall time, completion tokens per hour (steadier than
attempts: the model's attempts differ in length), the prefix-cache share, and both rates as ratios to the first
row (the lowest level of the first setting). ``--temperature 0`` runs the agent greedy instead of at its
configured temperature, so that the settings do closer to the same attempts (speculative decoding keeps greedy
output as it is, but llama.cpp's batching and drafting round differently: measured, 1 of 4 greedy attempts
went another way on another server) and attempts per hour depends less on how long sampled attempts happened
to run; completion tokens per hour stays the steadier rate.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import yaml
from local_server import URL, answering, serving
from replies import attempt, summary, trials_under

ROOT = Path(__file__).resolve().parents[2]
TASKS = ("csv-sum-paid-invoices", "git-init-first-commit", "csv-dedupe-signups", "deploy-scripts-exec-bits")


@contextmanager
def server(spec: str, slots: int, log: Path, threads: int | None = None):
    """``serve.py`` with this speculative decoding, ``slots`` slots (and ``threads`` CPU threads) for the
    duration, or (``external``) whatever answers already."""
    if spec == "external":
        if not answering():
            sys.exit(f"error: --spec external: nothing answers on {URL}")
        yield
        return
    kind, _, draft = spec.partition(":")
    with serving(["--spec", kind, "--parallel", str(slots), *(["--draft-max", draft] if draft else []),
                  *(["--threads", str(threads)] if threads else [])], log):
        yield


def agent_config(run_dir: Path, temperature: float | None) -> Path:
    """The bench's agent settings, with the agent's temperature replaced when one is given (written beside the
    run directory: a config is a file, and `modularrsi run` has no temperature flag)."""
    shipped = ROOT / "bench/small_tier/agent.yaml"
    if temperature is None:
        return shipped
    config = yaml.safe_load(shipped.read_text())
    config["roles"]["agent"]["temperature"] = temperature
    path = run_dir.with_name(f"{run_dir.name}.yaml")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def setting_name(spec: str, threads: int | None, temperature: float | None) -> str:
    """The directory of one server setting's levels: a level run greedy never resumes one run sampled."""
    return spec + (f"-t{threads}" if threads else "") + (f"-T{temperature:g}" if temperature is not None else "")


def run_level(level: int, tasks: list[str], k: int, run_dir: Path, temperature: float | None = None) -> Path:
    command = [str(ROOT / ".venv" / "bin" / "modularrsi"), "run"]
    if (run_dir / "config.yaml").is_file():  # a started run goes on with its own settings (--resume takes no others)
        command += ["--resume", str(run_dir)]
    else:
        command += ["--config", str(agent_config(run_dir, temperature)), "--tasks",
                    *[str(ROOT / "tasks/small/pool" / t) for t in tasks], "-k", str(k), "-n", str(level),
                    "--env", "local", "--out", str(run_dir)]
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HARBOR_TELEMETRY": "0",
           "LOCAL_MODEL_KEY": os.environ.get("LOCAL_MODEL_KEY", "local")}
    subprocess.run(command, check=True, env=env, cwd=ROOT)
    return run_dir


def figures_of(label: str, run_dir: Path) -> tuple[str, dict, float]:
    """A finished level's row: its label, ``replies.summary`` of its trials, completion tokens per hour."""
    figures = summary([row for trial in trials_under(run_dir) if (row := attempt(trial, 1024))])
    return label, figures, figures["completion_tokens_per_attempt"] * figures["attempts"] / figures["wall_hours"]


def table(rows: list[tuple[str, dict, float]]) -> str:
    """Each row with both rates as ratios to the first row's."""
    base = rows[0]
    lines = [f"{'server, level':>18} {'attempts':>8} {'att/h':>7} {'ratio':>6} {'tok/h':>8} {'ratio':>6} {'cached':>6} "
             f"{'passed':>6}"]
    for label, figures, tokens_per_hour in rows:
        lines.append(f"{label:>18} {figures['attempts']:>8} {figures['attempts_per_hour']:>7.2f} "
                     f"{figures['attempts_per_hour'] / base[1]['attempts_per_hour']:>6.2f} {tokens_per_hour:>8.0f} "
                     f"{tokens_per_hour / base[2]:>6.2f} {figures['prefix_cached_share']:>6.3f} {figures['passed']:>6}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), help="task names under tasks/small/pool")
    parser.add_argument("-k", type=int, default=1, help="attempts per task")
    parser.add_argument("--levels", nargs="+", type=int, default=[1, 2, 4])
    parser.add_argument("--spec", nargs="+", default=["ngram_mod"],
                        help="serve.py's speculative decoding per server (none: off; external: the running one)")
    parser.add_argument("--threads", nargs="+", type=int, help="serve.py's CPU threads per server (default: "
                        "its own, the machine's cores)")
    parser.add_argument("--temperature", type=float, help="the agent's temperature instead of agent.yaml's (0: "
                        "the settings do closer to the same attempts; batching can still part them)")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "small-tier" / "speed")
    parser.add_argument("--report", nargs="+", type=Path, metavar="RUN_DIR", help="print the table of these "
                        "finished levels (ratios to the first), running and serving nothing")
    args = parser.parse_args()
    if args.temperature is not None and not 0 <= args.temperature <= 2:
        parser.exit(2, f"error: --temperature {args.temperature}: out of range; give a value from 0 to 2\n")
    if args.report:
        missing = [d for d in args.report if not (d / "config.yaml").is_file()]
        if missing:
            sys.exit(f"error: {missing[0]}: not a run directory (no config.yaml)")
        print(table([figures_of(f"{d.parent.name} {d.name}", d) for d in args.report]))
        return 0
    rows = []
    for spec in args.spec:
        for threads in args.threads or [None]:
            name = setting_name(spec, threads, args.temperature)
            with server(spec, max(args.levels), args.out / name / "server.log", threads):
                for level in sorted(args.levels):
                    run_dir = run_level(level, args.tasks, args.k, args.out / name / f"c{level}", args.temperature)
                    rows.append(figures_of(f"{name} c{level}", run_dir))
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
