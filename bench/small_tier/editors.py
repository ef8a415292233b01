"""What an evolution run's LLM editor did with each direction, read from the run (no model needed).

    python bench/small_tier/editors.py RUN_DIR... [--json OUT]

For every proposal in a run's ``history.jsonl``: how it ended (promoted, rejected by which gate, editor
failure) and, where the editor's conversation was kept (``gates/<d>-<try>/editor.jsonl``), its turns, the
files it wrote (a write that changed a file's text; in the guided format, the file once it passed the
checks), the calls that failed, the writes of the text a file
already held, and the ``done`` calls the editor's own checks refused back (with the last reason). Then per
run: proposals, how many reached the gates (the editor finished), how many wrote a file, called ``done``,
and the outcomes - the measure of an editor protocol with a small model, run against run.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

TRANSCRIPT = "editor.jsonl"


def conversation(path: Path) -> dict:
    """One edit's conversation, counted: turns, files written, failed calls, same-text writes, refused dones."""
    messages = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    answers = [m["content"] for m in messages if m["role"] == "user" and m["purpose"] not in ("editor_task",)]
    lines = [line for answer in answers for line in answer.splitlines()]
    refused = [a.split("\n")[0] for a in answers if a.startswith("Refused:")]
    task = next((m["content"] for m in messages if m["purpose"] == "editor_task"), "")
    guided = re.search(r"^Write (\S+)\.py: ", task.splitlines()[-1] if task else "", re.M)  # the guided format
    passed = guided and any(a.startswith("Now describe your change") or "Now describe your change" in a
                            for a in answers)  # its file passed the checks: the description was asked for
    return {"turns": sum(m["role"] == "assistant" for m in messages),
            "wrote": sorted({line.split()[1] for line in lines if line.startswith("wrote ") and "nothing changed"
                             not in line} | ({f"{guided[1]}.py"} if passed else set())),
            "failed_calls": sum(line.startswith("error:") for line in lines),
            "same_text_writes": sum("the same text it held already" in line for line in lines),
            "dones_refused": len(refused), "last_refusal": refused[-1][len("Refused: "):] if refused else None}


def run_summary(run: Path) -> dict:
    history = run / "history.jsonl"
    if not history.is_file():
        raise SystemExit(f"error: {run}: no history.jsonl; give an evolution run directory")
    changes = [json.loads(line) for line in history.read_text().splitlines() if line.strip()]
    transcripts = {f"{p.parents[3].name}/e{p.parents[2].name.removeprefix('epoch_')}/d{p.parent.name}": p
                   for p in run.glob(f"lanes/*/epoch_*/gates/*/{TRANSCRIPT}")}
    proposals = []
    for change in changes:
        row = {"id": change["id"], "outcome": change["outcome"], "rejected_by": change.get("rejected_by"),
               "reason": change.get("reason", "")[:200], "files": change.get("files", [])}
        if change["id"] in transcripts:
            row |= conversation(transcripts[change["id"]])
        proposals.append(row)
    kept = [p for p in proposals if "turns" in p]
    return {"run": str(run), "proposals": len(proposals),
            "finished": sum(p["outcome"] != "editor_failed" for p in proposals),
            "outcomes": dict(Counter(p["outcome"] if not p["rejected_by"] else f"rejected by {p['rejected_by']}"
                                     for p in proposals)),
            "with_transcript": len(kept), "wrote_a_file": sum(bool(p["wrote"]) for p in kept),
            "called_done": sum(p["dones_refused"] > 0 or p["outcome"] != "editor_failed" for p in kept),
            "rows": proposals}


def render(summary: dict) -> str:
    lines = [f"{summary['run']}: {summary['proposals']} proposals, {summary['finished']} finished by the editor "
             f"(reached the gates); outcomes {summary['outcomes']}"]
    if summary["with_transcript"]:
        lines.append(f"  with a conversation kept: {summary['with_transcript']}; wrote a file "
                     f"{summary['wrote_a_file']}, called done {summary['called_done']}")
    for p in summary["rows"]:
        talk = (f" | {p['turns']} turns, wrote {', '.join(p['wrote']) or 'nothing'}, {p['failed_calls']} failed "
                f"calls, {p['same_text_writes']} same-text writes, {p['dones_refused']} dones refused"
                + (f" (last: {p['last_refusal'][:90]})" if p["last_refusal"] else "")) if "turns" in p else ""
        lines.append(f"  {p['id']:<22} {p['outcome']:<14} {p['reason'][:100]}{talk}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, help="also write the summaries here")
    args = parser.parse_args(argv)
    summaries = [run_summary(run) for run in args.runs]
    print("\n\n".join(render(s) for s in summaries))
    if args.json:
        args.json.write_text(json.dumps(summaries, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
