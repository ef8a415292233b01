"""Rehearse an evolution's editor role on a direction a run already found, before an arm spends an hour on it.

    python bench/small_tier/rehearse_editor.py RUN_DIR [--lane tool_use] [--direction 0] [--config CONFIG]
        [--tries 1] [--max-turns N] [--out DIR]

RUN_DIR is a ``modularrsi evolve`` directory past its first analysis (e.g. ``runs/small-tier/evolve-llm-replies``).
The editor of ``--config`` (default: the run's own ``config.yaml``) gets the request a lane's first candidate gets -
the direction, its excerpts, the replies recorded in its trials (``editor.replies``), the lane's gen_0 as
parent - ``--tries`` times, each into its own staging directory under ``--out`` (default
``runs/small-tier/rehearse-editor``), with the conversation beside it (``<try>/editor.jsonl``); ``--max-turns``
replaces the config's ``editor.max_turns`` (the guided format's search budget). Each try prints
how it ended, its turns and its seconds. Nothing is cached: each try asks the model afresh.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import time
from pathlib import Path

from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.editor import TRANSCRIPT, EditorError, EditRequest, LLMEditor
from modularrsi.evolve.findings import Direction
from modularrsi.evolve.lane import excerpts
from modularrsi.evolve.memory import TrajectoryMemory
from modularrsi.evolve.reply_cases import SHOWN_TO, recorded_replies
from modularrsi.models.registry import make_model

ROOT = Path(__file__).resolve().parents[2]


def request_of(run: Path, lane: str, index: int, wanted: int) -> EditRequest:
    """The request a lane's first candidate for direction ``index`` of epoch 0 gets (history: none)."""
    epoch = run / "lanes" / lane / "epoch_0"
    directions = json.loads((epoch / "directions.json").read_text())["directions"]
    if not 0 <= index < len(directions):
        sys.exit(f"error: {epoch / 'directions.json'}: no direction {index} (it holds {len(directions)})")
    direction = Direction.model_validate(directions[index])
    memory = TrajectoryMemory(run / "memory.sqlite")
    replies = recorded_replies((r.trial_dir for t in direction.tasks for r in memory.attempts(lane, 0, t)),
                               refused=wanted, read=wanted) if direction.module in SHOWN_TO and wanted else []
    return EditRequest(direction=direction, parent_dir=run / "lanes" / lane / "gen_0", modules=[direction.module],
                       excerpts=excerpts(direction), replies=replies)


async def rehearse(args: argparse.Namespace) -> int:
    config = EvolveConfig.load(args.config)
    request = request_of(args.run_dir, args.lane, args.direction, config.editor.replies)
    print(f"{request.direction.id}: {len(request.replies)} recorded replies "
          f"({sum(bool(r.error) for r in request.replies)} refused); editor format {config.editor.format}")
    editor = LLMEditor(make_model(config.role("editor")), max_turns=args.max_turns or config.editor.max_turns,
                       form=config.editor.format, rules=config.gates.review.rules)
    for n in range(args.tries):
        where = args.out / str(n)
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        started = time.monotonic()
        try:
            proposal = await editor.edit(request, where / "staging")
            outcome = f"proposal: {', '.join(proposal.changed_files)} - {proposal.description}"
        except EditorError as exc:
            outcome = f"editor failed: {exc}"
        turns = sum(json.loads(line)["role"] == "assistant" for line in (where / TRANSCRIPT).read_text().splitlines())
        print(f"try {n}: {outcome} [{turns} turns, {time.monotonic() - started:.0f} s; {where / TRANSCRIPT}]")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--lane", default="tool_use")
    parser.add_argument("--direction", type=int, default=0)
    parser.add_argument("--config", type=Path, help="default: the run's config.yaml")
    parser.add_argument("--tries", type=int, default=1)
    parser.add_argument("--max-turns", type=int, help="default: the config's editor.max_turns")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "small-tier" / "rehearse-editor")
    args = parser.parse_args()
    args.run_dir = args.run_dir.resolve()
    args.config = (args.config or args.run_dir / "config.yaml").resolve()
    args.out = args.out.resolve()
    found = args.run_dir / "lanes" / args.lane / "epoch_0" / "directions.json"
    if not found.is_file():
        sys.exit(f"error: {found}: missing - give an evolve run whose {args.lane} lane has analysed its first epoch "
                 "(bench/small_tier/run.sh evolve)")
    os.chdir(ROOT)  # the config's paths are the repository's, as bench/small_tier/run.sh reads them
    return asyncio.run(rehearse(args))


if __name__ == "__main__":
    sys.exit(main())
