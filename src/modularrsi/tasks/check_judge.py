"""The optional LLM judge of ``tasks check``: one call per task, scores 1-5 on the paper's three dimensions.

Invariants: the judge never raises for a task — a model failure or a reply that is not the expected JSON
is recorded on the :class:`JudgeResult` (``error``), and the caller turns it into a flag. The judge sees
the instruction, the Dockerfile, ``tests/test.sh`` and ``solution/solve.sh`` (each cut to
``MAX_FILE_CHARS``), never the trial outcomes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from modularrsi.models.base import Message, ModelError
from modularrsi.models.registry import make_model
from modularrsi.models.settings import ModelSettings

DIMENSIONS = {
    "environment_integrity": "the environment builds and holds what the task needs, and nothing leaks the answer",
    "practicality_non_triviality": "a realistic task that needs several real steps, not a one-liner",
    "evaluator_validity": "test.sh rewards exactly the requested outcome; a partial or wrong solution gets 0",
}
MAX_FILE_CHARS = 12_000

SYSTEM = ("You review tasks of a benchmark for terminal agents. Each task has an instruction (all the agent "
          "sees), a Dockerfile (the environment), tests/test.sh (the verifier, writes reward 1 or 0) and "
          "solution/solve.sh (the reference solution). Score the task 1 (bad) to 5 (excellent) on each "
          "dimension and give a one-sentence reason. Answer with JSON only, no prose, exactly:\n"
          + json.dumps({d: {"score": 3, "reason": "..."} for d in DIMENSIONS}, indent=1)
          + "\nDimensions:\n" + "\n".join(f"- {d}: {text}" for d, text in DIMENSIONS.items()))


@dataclass
class JudgeResult:
    """Scores and reasons per dimension, or the error that prevented them."""

    scores: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    unparsed: bool = False


def _file(path: Path) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "(missing)"
    return text if len(text) <= MAX_FILE_CHARS else text[:MAX_FILE_CHARS] + "\n... (cut)"


def prompt(task_dir: Path) -> list[Message]:
    parts = [("instruction.md", task_dir / "instruction.md"), ("environment/Dockerfile",
             task_dir / "environment" / "Dockerfile"), ("tests/test.sh", task_dir / "tests" / "test.sh"),
             ("solution/solve.sh", task_dir / "solution" / "solve.sh")]
    body = "\n\n".join(f"=== {name} ===\n{_file(path)}" for name, path in parts)
    return [Message("system", SYSTEM, "judge_instructions"), Message("user", f"Task {task_dir.name}\n\n{body}",
                                                                         "judge_request")]


def parse_judgement(text: str) -> tuple[dict[str, int], dict[str, str]]:
    """Scores and reasons from a reply (code fences and prose around one JSON object are tolerated);
    ValueError with a one-line reason otherwise."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object in the reply")
    try:
        data: Any = json.loads(text[start:end + 1])
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at char {exc.pos})") from None
    scores: dict[str, int] = {}
    reasons: dict[str, str] = {}
    for name in DIMENSIONS:
        item = data.get(name) if isinstance(data, dict) else None
        if not isinstance(item, dict):
            raise ValueError(f"'{name}' missing or not an object with score and reason")
        score = item.get("score")
        if isinstance(score, str) and re.fullmatch(r"[1-5]", score.strip()):
            score = int(score)
        if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= 5:
            raise ValueError(f"'{name}.score' is {score!r}, expected an integer 1-5")
        scores[name], reasons[name] = score, str(item.get("reason", "")).strip()
    return scores, reasons


async def judge_task(task_dir: Path, judge: ModelSettings | str) -> JudgeResult:
    """One judge call on ``task_dir``; never raises for a bad model or a bad reply."""
    model_name = judge.model if isinstance(judge, ModelSettings) else judge
    try:
        model = make_model(judge)
        reply = await model.complete(prompt(task_dir))
    except (ModelError, ValueError, OSError) as exc:
        return JudgeResult(error=f"judge {model_name} failed: {type(exc).__name__}: {exc}".splitlines()[0])
    try:
        scores, reasons = parse_judgement(reply.content)
    except ValueError as exc:
        return JudgeResult(error=f"judge reply could not be parsed: {exc}", unparsed=True)
    return JudgeResult(scores, reasons)
