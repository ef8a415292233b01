"""Which functions are active for a task: the manifest's default (static) or a task-aware choice.

The task-aware composer makes one model call showing the task instruction and every function's
description, and expects JSON ``{"<module>": ["<name>", ...], ...}`` (a JSON schema listing each
module's names is sent as ``response_format`` where the endpoint takes one). An unusable answer — not
JSON, an unknown name, a core slot without exactly one core — is shown back to the model once with
what was wrong; still unusable, or a failed call, falls back to the static choice and says why.
"""

from __future__ import annotations

import json
import re

from modularrsi.harness.library import Function, Generation, GenerationError, check_active
from modularrsi.harness.protocols import MODULES
from modularrsi.models.base import ChatModel, Message
from modularrsi.models.structured import ask_json
from modularrsi.util.jsontypes import JSONSchema

EXAMPLE = '{"tool_use": ["name"], "completion": ["name", "other_name"]}'


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


def schema(generation: Generation) -> JSONSchema:
    """The answer's JSON schema: per module, a list of that module's function names."""
    properties = {m: {"type": "array", "items": {"type": "string", "enum": [f.name for f in generation.in_module(m)]}}
                  for m in MODULES}
    return {"type": "object", "additionalProperties": False, "required": list(MODULES), "properties": properties}


def parse_choice(generation: Generation, text: str) -> tuple[dict[str, list[str]] | None, str | None]:
    """The active set an answer names (modules left out keep the static choice), or None and the reason."""
    fallback = static(generation)
    match = re.search(r"\{.*\}", text, re.S)
    try:
        chosen = json.loads(match.group(0) if match else text)
        active = {m: [str(n) for n in chosen.get(m, fallback[m])] for m in MODULES}
        check_active(generation.path / "manifest.json", active, generation.functions)
    except (GenerationError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return None, f"{type(exc).__name__}: {str(exc).rsplit('manifest.json: ', 1)[-1][:160]}"
    return active, None


async def task_aware(generation: Generation, instruction: str, model: ChatModel) -> tuple[dict[str, list[str]], str]:
    """Returns (active set, note). The note says which path was taken and why."""
    fallback = static(generation)
    if all(len(generation.in_module(m)) <= 1 for m in MODULES):
        return fallback, "static: every module has a single function"
    messages = [Message("user", _prompt(generation, instruction), "composer")]
    try:
        reply = await ask_json(model, messages, "composer", schema(generation),
                               lambda text: parse_choice(generation, text), EXAMPLE)
    except Exception as exc:  # noqa: BLE001 - a composer failure must never stop an attempt
        return fallback, f"static: composer call failed ({type(exc).__name__})"
    if reply.value is None and reply.calls == 0:
        return fallback, f"static: composer call failed ({reply.error[:200]})"
    if reply.value is None:
        return fallback, f"static: task-aware choice rejected ({reply.error[:200]})"
    return reply.value, "task-aware" + (" (after a repair)" if reply.repairs else "")
