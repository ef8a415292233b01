"""What a real model's attempts spent their time on, read from finished trials (no model needed).

    python bench/small_tier/replies.py RUN_DIR... [--cap 1024] [--json OUT]

For every trial under the run directories (``*/trials/*`` or ``trials/*``): how it ended, its turns,
how many replies the parser refused and why, how many replies repeated the previous one word for
word (and how many of those were refused again; how many attempts ended on their last three replies
identical and refused: the parser's feedback answered with the same reply until the turn limit), tokens,
the share of prompt tokens the server took from its prefix cache (``cached_tokens`` / ``prompt_tokens``: near
1 when every request extends the previous one), and the rate the run made attempts at (attempts per hour of
wall time from the first trial's start to the last one's end, with the concurrency that was in effect: the
most trials running at one instant).

A refused reply is put in the first class that explains it:

- ``raw-control-char``: the reply's first JSON object parses once raw newlines or tabs inside its
  strings are allowed (``json.loads(strict=False)``): the model wrote multi-line strings unescaped;
- ``invalid-escape``: it parses once every backslash JSON does not allow (``\\'``, ``\\;``, ``\\.``) is
  doubled: the model escaped a shell character inside a keystroke string;
- ``valid-object-later``: the first object does not parse, but a later one (opening a line or a
  ```` ```json ```` fence) does and holds ``commands`` (the model nested or repeated its answer inside a
  string of the first);
- ``cut-off``: the reply used the whole output cap (``--cap``);
- ``no-object``: no ``{`` at all;
- ``other``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

from modularrsi.rollouts.runner import busy_seconds

ESCAPE = re.compile(r"\\(.)", re.DOTALL)  # left to right, so an escaped backslash is consumed whole


def double_bad_escapes(text: str) -> str:
    """Every backslash JSON does not allow before its next character, doubled."""
    return ESCAPE.sub(lambda m: m.group(0) if m.group(1) in '"\\/bfnrtu' else "\\\\" + m.group(1), text)


LINE_OBJECT = re.compile(r"(?:^|\n)(?:```(?:json)?\s*)?(\{)")


def first_object(text: str) -> str | None:
    """The first balanced ``{...}`` of ``text`` (quotes respected, raw newlines allowed), or None."""
    start = text.find("{")
    if start < 0:
        return None
    depth, in_string, escaped = 0, False, False
    for i, char in enumerate(text[start:], start):
        if in_string:
            escaped, in_string = (False, in_string) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "{}":
            depth += 1 if char == "{" else -1
            if depth == 0:
                return text[start:i + 1]
    return None


def loads(text: str, strict: bool) -> object | None:
    try:
        return json.loads(text, strict=strict)
    except ValueError:
        return None


def refusal_class(reply: str, completion_tokens: int, cap: int) -> str:
    if "{" not in reply:
        return "no-object"
    body = first_object(reply)
    if body is not None and loads(body, True) is None and isinstance(loads(body, False), dict):
        return "raw-control-char"
    if body is not None and isinstance(loads(double_bad_escapes(body), False), dict):
        return "invalid-escape"
    for match in LINE_OBJECT.finditer(reply):  # objects opening a line (or a fence) after the first one
        if match.start(1) <= reply.find("{"):
            continue
        later = first_object(reply[match.start(1):])
        parsed = loads(later, False) if later else None
        if isinstance(parsed, dict) and "commands" in parsed:
            return "valid-object-later"
    if completion_tokens >= cap:
        return "cut-off"
    return "other"


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def attempt(trial: Path, cap: int) -> dict | None:
    result_path, trajectory_path = trial / "result.json", trial / "agent" / "trajectory.json"
    if not (result_path.is_file() and trajectory_path.is_file()):
        return None
    result = json.loads(result_path.read_text())
    trajectory = json.loads(trajectory_path.read_text())
    replies = [s for s in trajectory["steps"] if s.get("source") == "agent"]
    classes: Counter[str] = Counter()
    repeats = repeats_refused = 0
    for i, step in enumerate(replies):
        refused = bool(step.get("extra", {}).get("parse_error"))
        if refused:
            tokens = (step.get("metrics") or {}).get("completion_tokens", 0)
            classes[refusal_class(step.get("message") or "", tokens, cap)] += 1
        repeated = i > 0 and step.get("message") == replies[i - 1].get("message")
        repeats, repeats_refused = repeats + repeated, repeats_refused + (repeated and refused)
    last = replies[-3:]  # the attempt ended answering the parser's feedback with one refused reply, again and again
    refused_loop = len(last) == 3 and len({s.get("message") for s in last}) == 1 and all(
        s.get("extra", {}).get("parse_error") for s in last)
    totals = trajectory.get("final_metrics") or {}
    rewards = (result.get("verifier_result") or {}).get("rewards") or {}
    return {"trial": trial.name, "reward": rewards.get("reward"),
            "ending": (totals.get("extra") or {}).get("ending", {}).get("reason", "unknown"),
            "turns": len(replies), "refused": sum(classes.values()), "refused_by_class": dict(classes),
            "repeated_replies": repeats, "repeated_refused": repeats_refused, "refused_loop": refused_loop,
            "prompt_tokens": totals.get("total_prompt_tokens", 0),
            "cached_tokens": totals.get("total_cached_tokens", 0),
            "completion_tokens": totals.get("total_completion_tokens", 0),
            "started": result["started_at"], "finished": result["finished_at"]}


def most_at_once(rows: list[dict]) -> int:
    edges = sorted([(when(r["started"]), 1) for r in rows] + [(when(r["finished"]), -1) for r in rows])
    running = peak = 0
    for _, step in edges:
        running += step
        peak = max(peak, running)
    return peak


def summary(rows: list[dict]) -> dict:
    span_h = busy_seconds([(when(r["started"]), when(r["finished"])) for r in rows]) / 3600
    turns = sum(r["turns"] for r in rows)
    prompt = sum(r["prompt_tokens"] for r in rows)
    classes: Counter[str] = Counter()
    for r in rows:
        classes.update(r["refused_by_class"])
    return {"attempts": len(rows), "passed": sum(r["reward"] == 1 for r in rows),
            "endings": dict(Counter(r["ending"] for r in rows)), "turns": turns,
            "refused": sum(classes.values()), "refused_share": round(sum(classes.values()) / max(turns, 1), 3),
            "refused_by_class": dict(classes.most_common()),
            "repeated_replies": sum(r["repeated_replies"] for r in rows),
            "repeated_refused": sum(r["repeated_refused"] for r in rows),
            "ending_in_refused_loop": sum(r["refused_loop"] for r in rows),
            "prefix_cached_share": round(sum(r["cached_tokens"] for r in rows) / max(prompt, 1), 3),
            "completion_tokens_per_attempt": round(sum(r["completion_tokens"] for r in rows) / len(rows)),
            "wall_hours": round(span_h, 3), "most_at_once": most_at_once(rows),
            "attempts_per_hour": round(len(rows) / span_h, 2) if span_h else None}


def trials_under(run_dir: Path) -> list[Path]:
    return sorted({p.parent for p in [*run_dir.glob("trials/*/result.json"), *run_dir.glob("*/trials/*/result.json")]})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--cap", type=int, default=1024, help="the agent's max_output_tokens")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    rows = [row for run in args.runs for trial in trials_under(run) if (row := attempt(trial, args.cap))]
    if not rows:
        print(f"error: no finished trial with a trajectory under {', '.join(map(str, args.runs))}", file=sys.stderr)
        return 2
    figures = summary(rows)
    for key, value in figures.items():
        print(f"{key:32} {value}")
    if args.json:
        args.json.write_text(json.dumps({"summary": figures, "attempts": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
