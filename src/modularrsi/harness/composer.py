"""Which functions are active for a task: the manifest's default (static) or a task-aware choice.

The task-aware composer makes one model call showing the task instruction and every function's
description, and expects JSON ``{"<module>": ["<name>", ...], ...}``. Any failure — the call, the
JSON, an unknown name, a core slot without exactly one core — falls back to the static choice and
says why.
"""

from __future__ import annotations

import json
import re

from modularrsi.harness.library import Function, Generation, GenerationError, check_active
from modularrsi.harness.protocols import MODULES
from modularrsi.models.base import ChatModel, Message


def resolve(generation: Generation, active: dict[str, list[str]]) -> dict[str, list[Function]]:
    return {m: [generation.functions[f"{m}/{n}"] for n in active.get(m, [])] for m in MODULES}


def static(generation: Generation) -> dict[str, list[str]]:
    return generation.default_active()


def _prompt(generation: Generation, instruction: str) -> str:
    lines = ["Choose which harness functions to activate for the task below. Each module lists its",
             "functions; a 'core' slot takes exactly one core function, 'additive' functions are optional",
             "and run in the order you give. Answer with JSON only: {\"module\": [\"name\", ...], ...}.", ""]
    for module in MODULES:
        lines.append(f"## {module}")
        for fn in generation.in_module(module):
            lines.append(f"- {fn.name} ({fn.role}): {fn.description}")
    lines += ["", "## Task", instruction.strip()]
    return "\n".join(lines)


async def task_aware(generation: Generation, instruction: str, model: ChatModel) -> tuple[dict[str, list[str]], str]:
    """Returns (active set, note). The note says which path was taken and why."""
    fallback = static(generation)
    if all(len(generation.in_module(m)) <= 1 for m in MODULES):
        return fallback, "static: every module has a single function"
    try:
        completion = await model.complete([Message("user", _prompt(generation, instruction), "composer")])
        match = re.search(r"\{.*\}", completion.content, re.S)
        chosen = json.loads(match.group(0) if match else completion.content)
        active = {m: [str(n) for n in chosen.get(m, fallback[m])] for m in MODULES}
        check_active(generation.path / "manifest.json", active, generation.functions)
        return active, "task-aware"
    except (GenerationError, ValueError, KeyError, TypeError, AttributeError) as exc:
        reason = str(exc).rsplit("manifest.json: ", 1)[-1][:160]
        return fallback, f"static: task-aware choice rejected ({type(exc).__name__}: {reason})"
    except Exception as exc:  # noqa: BLE001 - a composer failure must never stop an attempt
        return fallback, f"static: composer call failed ({type(exc).__name__})"
