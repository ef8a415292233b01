"""Public Terminal-Bench-2-format tasks under ``--env auto`` on this machine, and what each
environment costs per trial.

    python bench/real_tasks.py sample REPO... [--n 30] [--seed 2026] --out TASKS_DIR  # git clones of task sets
    python bench/real_tasks.py summary TASKS_DIR OUT_DIR      # after: modularrsi tasks validate TASKS_DIR
                                                              #          --env auto --out OUT_DIR
    python bench/real_tasks.py timing TASK [--repeats 2] [--engines podman docker]
                                                              # each engine cold / cached, and local when it fits

``sample`` draws tasks at random from git clones of public task sets, among the complete ones (a
task.toml beside instruction.md, environment/Dockerfile, solution/solve.sh and tests/test.sh, at the
clone's HEAD), and exports them unchanged. ``summary`` reads the task folders and the validation's
trial directories and prints: the share of
tasks that parse (task.toml loads, the Dockerfile's base images can be read), the share that validate
(oracle 1, nop 0) among all and among those whose base image is Debian-based, the environment
``auto`` chose per task, and every other task's reason, grouped. ``timing`` runs the oracle of one
task in sequence — on each engine (default: every one that answers here) with the task's images removed
(a cold build), then again (the cached build), then LocalSandbox when the Dockerfile fits its
subset — and prints each trial's phases from Harbor's
result.json: environment set-up, agent, verifier, and the overhead (everything but agent and verifier).
Nothing here is tuned per task; the numbers are only what the trials wrote.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from datetime import datetime
from pathlib import Path

from harbor.models.trial.config import AgentConfig

from modularrsi.engines.engine import ENGINES, Engine
from modularrsi.engines.images import from_images
from modularrsi.engines.refs import parse_ref
from modularrsi.tasks.model import TaskError, discover, load_task
from modularrsi.tasks.trials import EnvironmentUnavailable, auto_choice, environment_name, run_trial
from modularrsi.util.outbound import apply_offline_defaults

#: Docker's official images that are built on Debian (unless their tag names another distribution).
DEBIAN_BASED = {"debian", "python", "golang", "gcc", "node", "rust", "buildpack-deps", "perl", "ruby", "php",
                "openjdk", "r-base", "haskell", "julia"}
OTHER_DISTROS = ("alpine", "jammy", "noble", "focal", "ubuntu", "ubi", "centos", "fedora", "windows")


def debian_based(image: str) -> bool:
    ref = parse_ref(image)
    return ref.repository in DEBIAN_BASED and not any(d in ref.tag for d in OTHER_DISTROS)


def parses(task: Path) -> tuple[bool, list[str], str]:
    """Whether the task loads, its base images, and the reason when it does not."""
    try:
        load_task(task)
        return True, from_images(task / "environment" / "Dockerfile"), ""
    except (TaskError, OSError, ValueError) as exc:
        return False, [], str(exc)


def trial_environment(out: Path, task: str) -> str:
    configs = sorted(out.glob(f"**/{task}__oracle*/config.json"))
    if not configs:
        return "none (refused before a trial)"
    config = configs[0]
    from harbor.models.trial.config import EnvironmentConfig

    return environment_name(EnvironmentConfig.model_validate(json.loads(config.read_text())["environment"]))


def reason_class(problem: str) -> str:
    """A short class for a failed task's reason (the full line is printed beside it)."""
    for needle, label in (("needs a registry", "base image needs a registry"),
                          ("does not have as a self-contained", "CPython version not on this host"),
                          ("Could not resolve host", "needs the internet beyond package registries"),
                          ("/root/.local/bin/uv", "needs the internet beyond package registries"),
                          ("DownloadVerifierDirError", "engine lost the container before the verifier's download"),
                          ("oracle got reward", "oracle not rewarded"), ("nop got reward", "nop rewarded"),
                          ("build", "image build failed")):
        if needle in problem:
            return label
    return "other"


def summary(tasks_dir: Path, out: Path) -> None:
    tasks = discover([tasks_dir])
    rows = {r["task"]: r for r in json.loads((out / "validation.json").read_text())["tasks"]}
    parsed = {t.name: parses(t) for t in tasks}
    debian = [t.name for t in tasks if parsed[t.name][1] and all(debian_based(i) for i in parsed[t.name][1])]
    ok = [name for name, row in rows.items() if row["problem"] is None]
    print(f"tasks: {len(tasks)} from {tasks_dir}")
    print(f"parse: {sum(p[0] for p in parsed.values())}/{len(tasks)}")
    print(f"validate (oracle 1, nop 0) under --env auto: {len(ok)}/{len(tasks)}")
    print(f"Debian-based base images: {len(debian)}; of them validate: {len(set(ok) & set(debian))}/{len(debian)}")
    print("\n| task | base image | environment | oracle | nop | outcome |\n|---|---|---|---|---|---|")
    classes: Counter[str] = Counter()
    for task in tasks:
        row = rows.get(task.name, {})
        problem = row.get("problem") or ""
        outcome = "validates" if task.name in ok else reason_class(problem)
        classes[outcome] += 1
        print(f"| {task.name} | {', '.join(parsed[task.name][1])} | {trial_environment(out, task.name)} | "
              f"{row.get('oracle')} | {row.get('nop')} | {outcome} |")
    print("\n" + "\n".join(f"- {label}: {n}" for label, n in classes.most_common()))
    print("\nreasons, in full:")
    for _, row in sorted(rows.items()):
        if row["problem"]:
            print(f"- {row['problem'][:400]}")


def _seconds(phase: dict | None) -> float:
    if not phase or not phase.get("started_at") or not phase.get("finished_at"):
        return 0.0
    start, end = (datetime.fromisoformat(phase[k].replace("Z", "+00:00")) for k in ("started_at", "finished_at"))
    return (end - start).total_seconds()


def phases(trial_dir: Path) -> dict[str, float]:
    result = json.loads((trial_dir / "result.json").read_text())
    total = _seconds(result)
    agent, verifier = _seconds(result.get("agent_execution")), _seconds(result.get("verifier"))
    reward = ((result.get("verifier_result") or {}).get("rewards") or {}).get("reward")
    return {"setup": _seconds(result.get("environment_setup")), "agent": agent, "verifier": verifier,
            "overhead": total - agent - verifier, "total": total, "reward": reward}


def drop_images(engine: str, task: str) -> None:
    """Remove every image ``engine`` built for ``task`` (its layers go with them: the next build is cold)."""
    listed = subprocess.run([engine, "images", "--format", "{{.Repository}}"], capture_output=True, text=True)
    mine = re.compile(rf"{re.escape(task)}-\d+__env")  # this bench's trials of ``task``, no other task's
    names = sorted({n for n in listed.stdout.split() if mine.match(n.rpartition("/")[2])})
    if names:
        subprocess.run([engine, "rmi", "-f", *names], capture_output=True)
    subprocess.run([engine, "image", "prune", "-f"], capture_output=True)


async def timing(task: Path, repeats: int, engines: list[str]) -> None:
    plan = [(engine, label, label == "cold") for engine in engines for label in ["cold"] + ["cached"] * repeats]
    try:
        if auto_choice(task, engine=None) == "local":
            plan += [("local", "", False)] * (repeats + 1)
    except EnvironmentUnavailable as exc:
        print(f"local: not measured ({exc})")
    measured: dict[str, list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-real-") as tmp:
        for i, (env, label, cold) in enumerate(plan):
            if cold:
                drop_images(env, task.name)
            outcome = await run_trial(task, AgentConfig(name="oracle"), Path(tmp), env, f"{task.name}-{i}")
            if outcome.exception:
                print(f"{env} {label}: trial failed: {outcome.exception[:300]}")
                continue
            measured.setdefault(f"{env} {label}".strip(), []).append(phases(outcome.trial_dir))
    print(f"\noracle of {task.name}: seconds per trial (median of the trials of each kind)\n")
    print("| environment | trials | set-up | agent | verifier | overhead | total | rewards |")
    print("|---|---|---|---|---|---|---|---|")
    for kind, rows in measured.items():
        med = {k: statistics.median(r[k] for r in rows) for k in ("setup", "agent", "verifier", "overhead", "total")}
        print(f"| {kind} | {len(rows)} | {med['setup']:.1f} | {med['agent']:.1f} | {med['verifier']:.1f} | "
              f"{med['overhead']:.1f} | {med['total']:.1f} | {[r['reward'] for r in rows]} |")


def sample(repos: list[Path], n: int, seed: int, out: Path) -> None:
    needed = ("environment/Dockerfile", "solution/solve.sh", "tests/test.sh", "instruction.md")
    complete: list[tuple[Path, str]] = []
    for repo in repos:
        listed = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.splitlines()
        files = set(listed)
        for name in sorted(f for f in files if f.endswith("task.toml")):
            folder = name.rpartition("/")[0]
            if folder and all(f"{folder}/{part}" in files for part in needed):
                complete.append((repo, folder))
    print(f"{len(complete)} complete tasks in {len(repos)} repositories; drawing {n} (seed {seed})")
    for repo, folder in random.Random(seed).sample(complete, n):
        target = out / folder.rpartition("/")[2]
        target.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(repo), "archive", "HEAD", folder], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(target), f"--strip-components={folder.count('/') + 1}"],
                       input=archive.stdout, check=True)
        print(f"{repo.name}: {folder}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    d = commands.add_parser("sample")
    d.add_argument("repos", type=Path, nargs="+")
    d.add_argument("--n", type=int, default=30)
    d.add_argument("--seed", type=int, default=2026)
    d.add_argument("--out", type=Path, required=True)
    s = commands.add_parser("summary")
    s.add_argument("tasks", type=Path)
    s.add_argument("out", type=Path)
    t = commands.add_parser("timing")
    t.add_argument("task", type=Path)
    t.add_argument("--repeats", type=int, default=2)
    t.add_argument("--engines", nargs="*", choices=ENGINES, help="default: every engine that answers here")
    args = parser.parse_args()
    apply_offline_defaults()
    if args.command == "sample":
        sample(args.repos, args.n, args.seed, args.out)
    elif args.command == "summary":
        summary(args.tasks.resolve(), args.out.resolve())
    else:
        engines = args.engines if args.engines is not None else [e for e in ENGINES if Engine(e).answers()]
        asyncio.run(timing(args.task.resolve(), args.repeats, engines))


if __name__ == "__main__":
    sys.exit(main())
