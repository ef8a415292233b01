"""bench/credit_truth.py: the ground truth agrees with the sim's reactions, and committed rows are judged by it
as it stands."""

from __future__ import annotations

import json
import subprocess
import sys
from types import SimpleNamespace

from testutil import REPO, load_script

from modularrsi.models.base import Message
from modularrsi.offline.catalogue import CATALOGUE, source
from modularrsi.offline.sim.agent import SimModel
from modularrsi.offline.sim.reading import load_task
from modularrsi.offline.sim.world import SimWorld

truth = load_script("bench/credit_truth.py")

#: what the sim's exploring turn prints: a listing of 400 paths, about 14 KB
LISTING = "".join(f"/usr/share/doc/lib{name}{i}/changelog.Debian.gz\n" for i in range(100)
                  for name in ("ssl", "curl", "xml", "yaml"))


def drops_a_step(observation: str, seed: int) -> bool:
    """Whether the sim, in a world where only long output is active (at rate 1), drops a step on reading it."""
    world = SimWorld(rates={"long_output": 1.0}, propensity_base=1.0, propensity_span=0.0)
    model = SimModel(load_task(REPO / "tasks" / "pool" / "argparse-logq-cli"), seed, world)
    model._perceive([Message("system", "task"), Message("user", observation)])
    return bool(model.plan.dropped)


def shaped(name: str, output: str) -> str:
    namespace: dict = {}
    exec(compile(source(name), name, "exec"), namespace)  # a catalogue template: a plain function file
    return namespace["shape"](output, SimpleNamespace(params=dict(namespace["PARAMETERS"])))


def test_the_long_output_row_is_what_the_sim_perceives():
    seeds = range(20)
    assert all(drops_a_step(LISTING, s) for s in seeds)  # gen_0 shows the listing whole: the mode fires
    observation = [m.name for m in CATALOGUE.values() if m.module == "observation"]
    undo = {name for name in observation if not any(drops_a_step(shaped(name, LISTING), s) for s in seeds)}
    listed = {name for name in observation if "long_output" in truth.ADDRESSES.get(name, set())}
    assert undo == listed == {"trim_listing", "tail_window", "errors_only"}


def row(method: str, world: int, promoted: list[str], right: int, false: int) -> dict:
    """A committed row whose judgements (right, false) were made by an older ground truth."""
    return {"method": method, "world": world, "active": ["command_loop", "long_output"], "promoted": promoted,
            "right": right, "false": false, "recall": 0.0, "gain": 0.1,
            "proposals": [{"function": n, "right": False, "outcome": "promoted", "rejected_by": None}
                          for n in promoted]}


def test_committed_rows_are_judged_by_the_truth_as_it_stands(tmp_path):
    stale = row("lanes", 3, ["errors_only", "strip_ansi"], right=0, false=2)
    now = truth.judged(stale)
    assert (now["right"], now["false"], now["recall"]) == (1, 1, 0.5)
    assert [p["right"] for p in now["proposals"]] == [True, False]
    assert stale["right"] == 0  # the row read is not changed

    # credit_stats.py judges the rows it reads: lanes' stale rows say 0 − 2 in every world, joint's 0 − 0
    for w in range(1, 7):
        (tmp_path / f"w{w}-lanes.json").write_text(json.dumps(row("lanes", w, ["errors_only", "tail_window"], 0, 2)))
        (tmp_path / f"w{w}-joint.json").write_text(json.dumps(row("joint", w, [], 0, 0)))
    out = subprocess.run([sys.executable, "bench/credit_stats.py", str(tmp_path)], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout
    assert "| joint | right − false | 6 | 6 / 0 / 0 | +2.000 | 0.031 | separated by these 6 |" in out
    # at a level for several looks the same worlds do not separate them
    strict = subprocess.run([sys.executable, "bench/credit_stats.py", str(tmp_path), "--alpha", "0.0125"], cwd=REPO,
                            check=True, capture_output=True, text=True).stdout
    assert "| 0.031 | about " in strict and "(p < 0.0125 with power 0.8)" in strict
    bad = subprocess.run([sys.executable, "bench/credit_stats.py", str(tmp_path), "--alpha", "5"], cwd=REPO,
                         capture_output=True, text=True)
    assert bad.returncode != 0 and bad.stderr.strip().splitlines() == [
        "error: --alpha 5.0: a test level lies between 0 and 1 (e.g. 0.05, or 0.05 / looks)"]
