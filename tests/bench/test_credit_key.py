"""bench/credit.py's results key names the source the runs import, not the checkout the script sits in."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from testutil import REPO

KEY = ("import argparse, sys; sys.path.insert(0, 'bench'); import credit; "
       "a = argparse.Namespace(tasks=3, heldout=3, k=2, alpha=0.2, evidence=8, candidates=1, epochs=1, directions=1); "
       "print(credit.PACKAGE); print(credit.results_key(a))")


def key_with(package_root: str) -> tuple[str, str]:
    env = {**os.environ, "PYTHONPATH": package_root}
    out = subprocess.run([sys.executable, "-c", KEY], cwd=REPO, env=env, check=True, capture_output=True, text=True)
    where, key = out.stdout.split()
    return where, key


def test_the_key_follows_the_imported_package(tmp_path):
    here_dir, here = key_with(str(REPO / "src"))
    copy = tmp_path / "other"
    shutil.copytree(REPO / "src" / "modularrsi", copy / "modularrsi",
                    ignore=shutil.ignore_patterns("__pycache__"))
    same_dir, same = key_with(str(copy))
    assert same_dir == str((copy / "modularrsi").resolve()) != here_dir
    assert same == here  # the same source under another root: the same key
    (copy / "modularrsi" / "evolve" / "seeds.py").write_text(
        (copy / "modularrsi" / "evolve" / "seeds.py").read_text() + "\n# changed\n")
    changed_dir, changed = key_with(str(copy))
    assert changed_dir == same_dir and changed != here


LARGE = ["--tasks", "20", "--heldout", "6", "-k", "2", "--alpha", "0.2", "--evidence", "8", "--epochs", "2",
         "--directions", "2", "--candidates", "2"]


def score_only(tmp_path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "bench/credit.py", "--score-only", "--worlds", "1", "--methods", "lanes",
                           "--out", str(tmp_path / "out"), "--results", str(tmp_path / "results"), *args],
                          cwd=REPO, capture_output=True, text=True)


def test_committed_scores_of_another_source_are_read_by_key(tmp_path):
    committed = REPO / "bench" / "results" / "credit" / "cd4f69f87848cfc0"
    kept = tmp_path / "results" / "k1"
    kept.mkdir(parents=True)
    for name in ("settings", "w1-lanes", "w1-best"):
        shutil.copy(committed / f"{name}.json", kept)
    shown = score_only(tmp_path, "--key", "k1", *LARGE)
    assert shown.returncode == 0, shown.stderr
    assert "| lanes | 1 | 0 |" in shown.stdout  # world 1 promoted nothing (docs/benchmarks.md)
    assert sorted(p.name for p in kept.iterdir()) == ["settings.json", "w1-best.json", "w1-lanes.json"]
    other = score_only(tmp_path, "--key", "k1", *LARGE[:-2], "--candidates", "1")
    assert other.returncode and other.stderr.strip().splitlines()[-1].endswith(
        "made with other settings: candidates=1 (committed 2)")
    assert "add --score-only" in subprocess.run(
        [sys.executable, "bench/credit.py", "--key", "k1", "--out", str(tmp_path / "out"), "--results",
         str(tmp_path / "results")], cwd=REPO, capture_output=True, text=True).stderr
    assert "no such committed scores" in score_only(tmp_path, "--key", "k2", *LARGE).stderr
