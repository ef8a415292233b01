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
