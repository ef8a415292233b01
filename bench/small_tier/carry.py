"""Carry the small tier's run directories from one machine to the next, resumable where they stopped.

    python bench/small_tier/carry.py save NAME...      # runs/small-tier/NAME -> results/carry/NAME.tar.gz
    python bench/small_tier/carry.py restore [NAME...]  # each archive (or those named) -> runs/small-tier/NAME
    python bench/small_tier/carry.py list               # the archives, their size, whether their run is here

The real-model steps (the mechanisms table, the two evolve arms) take several sittings, and a sitting may
start on a machine whose ``runs/`` is empty. An archive holds what a run's ``--resume`` reads - its config,
lock, state, history, every trial's result and trajectory, and each SQLite file (response caches, memory,
budget) copied through SQLite's backup API, so a run still writing is saved consistently - and leaves out
each trial's ``sandbox/`` (the working tree and disk image only a running trial uses: a resumed run starts an
unfinished trial afresh, and the response cache answers its requests again). ``restore`` never overwrites: a
run directory that exists is left alone (``bench/small_tier/run.sh`` restores the missing ones before every
step). The run's files name absolute paths: restore into a checkout at the same path.
"""

from __future__ import annotations

import argparse
import os
import sys
import tarfile
import tempfile
from pathlib import Path

from modularrsi.util.runcopy import is_sqlite, run_files, sqlite_snapshot

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "runs" / "small-tier"
CARRY = ROOT / "bench" / "small_tier" / "results" / "carry"


def save(name: str, runs: Path = RUNS, carry: Path = CARRY) -> Path:
    """Archive ``runs/name`` into ``carry/name.tar.gz`` (written whole, then moved into place)."""
    run = runs / name
    if not run.is_dir():
        raise SystemExit(f"error: {run}: no such run directory; `list` shows what there is")
    carry.mkdir(parents=True, exist_ok=True)
    archive = carry / f"{name}.tar.gz"
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        partial = carry / f".{name}.tar.gz.partial"
        with tarfile.open(partial, "w:gz") as tar:
            for number, path in enumerate(run_files(run)):
                kept = path
                if is_sqlite(path):
                    sqlite_snapshot(path, kept := scratch / f"{number}.sqlite")
                tar.add(kept, arcname=f"{name}/{path.relative_to(run)}", recursive=False)
        os.replace(partial, archive)
    return archive


def restore(name: str, runs: Path = RUNS, carry: Path = CARRY) -> Path | None:
    """Unpack ``carry/name.tar.gz`` into ``runs/name`` unless that exists (then None)."""
    archive, run = carry / f"{name}.tar.gz", runs / name
    if not archive.is_file():
        raise SystemExit(f"error: {archive}: no such archive; `list` shows what there is")
    if run.exists():
        return None
    runs.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=runs) as scratch, tarfile.open(archive) as tar:
        foreign = [m.name for m in tar.getmembers() if Path(m.name).parts[:1] != (name,)]
        if foreign:
            raise SystemExit(f"error: {archive}: member {foreign[0]!r} is outside {name}/; not restored")
        tar.extractall(scratch, filter="data")  # refuses absolute paths, '..', links out and device files
        os.replace(Path(scratch) / name, run)
    return run


def archives(carry: Path = CARRY) -> list[str]:
    return sorted(p.name.removesuffix(".tar.gz") for p in carry.glob("*.tar.gz"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=["save", "restore", "list"])
    parser.add_argument("names", nargs="*", help="run directories under runs/small-tier (restore: default all)")
    parser.add_argument("--runs", type=Path, default=RUNS, help=argparse.SUPPRESS)
    parser.add_argument("--carry", type=Path, default=CARRY, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.action == "save":
        if not args.names:
            parser.error("save: name the run directories to archive")
        for name in args.names:
            archive = save(name, args.runs, args.carry)
            print(f"saved {args.runs / name} -> {archive} ({archive.stat().st_size / 1e6:.1f} MB)")
    elif args.action == "restore":
        for name in args.names or archives(args.carry):
            run = restore(name, args.runs, args.carry)
            print(f"restored {run}" if run else f"kept {args.runs / name} (it exists)")
    else:
        if not archives(args.carry):
            print(f"no archives in {args.carry}")
        for name in archives(args.carry):
            size = (args.carry / f"{name}.tar.gz").stat().st_size / 1e6
            print(f"{name:<28} {size:>6.1f} MB  {'here' if (args.runs / name).is_dir() else 'not restored'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
