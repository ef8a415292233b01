"""The LLM analyst: one call to any ChatModel per task and lens; whatever comes back becomes a Finding.

The prompt shows the lens and its module's contract, the bucket, each attempt's signals, the harness
symptoms measured in them (:func:`~modularrsi.evolve.symptoms.measured`: which module's symptom separates
failing from passing attempts; a small model reads "parse" in a task as the harness's parser unless it is
told what was measured) and short excerpts of the paired trajectories around their first divergence, and
asks for one JSON object with the finding's fields (:data:`FINDING_SCHEMA`, sent as a JSON-schema
``response_format`` where the endpoint takes one). Answers are repaired, never trusted: the JSON object is
extracted from prose or code fences (trailing commas and Python literals tolerated), types are coerced,
and the counterfactual rule is applied. An answer without a usable object (malformed, empty, cut off,
``is_culprit`` that is not a yes or no) is shown back to the model once with what was wrong; still
unusable, or a failed model call, gives a non-culprit Finding with ``parse_error`` set (an invalid
analysis).

Harness behaviour vs task logic: the answer says what it ``concerns``. A finding about the task's own
solution (``task_logic``), a suggested change that names no harness mechanism at all, or one that repeats
three or more of the task instruction's own words (:func:`~.findings.task_words`) is not a harness
finding: it is kept as a non-culprit Finding with ``dropped`` saying why, and no direction is built
from it. So is a culprit claim for the lens when the measured symptoms blame other modules and not this
one (:func:`drop_unmeasured`; it then points at the module they blame). Only
:class:`~modularrsi.models.base.BudgetExceeded` propagates: the run must stop.
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any

from modularrsi.evolve.findings import (
    Finding,
    Kind,
    Module,
    TaskEvidence,
    names_harness_mechanism,
    strength_fields,
    task_words,
)
from modularrsi.evolve.signals import Signals
from modularrsi.evolve.symptoms import SimAnalystConfig, blamed, measured, mechanisms, ranked
from modularrsi.harness.protocols import CONTRACTS, MODULE_TITLES, MODULES
from modularrsi.models.base import ChatModel, Message
from modularrsi.models.structured import ask_json
from modularrsi.util.jsontypes import JSONSchema, Unvalidated

#: What each module owns (the lens's scope shown to the analyst).
MODULE_SCOPE = {
    "agent_loop": "the reason-act-observe cycle, recovery after errors, interventions (loop guards, plans)",
    "tool_use": "prompt format, parsing model replies into actions, validating and executing them, helper tools",
    "observation": "turning raw terminal output into the feedback the model reads",
    "context": "keeping and compressing the history (summaries, overflow handling)",
    "completion": "deciding that the task is done (checks on completion claims)",
}
ANSWER_FIELDS = ("is_culprit", "locked_module", "divergence", "would_change_outcome", "fixable_now",
                 "suggested_change", "mechanism", "evidence_steps", "concerns")
SYSTEM = (
    "You analyse trajectories of an LLM terminal agent to find what its harness - the code around the model, "
    "not the model and not the task - got wrong. Answer with one JSON object and nothing else.")
#: The answer's JSON schema (every field required, as strict JSON-schema output wants).
FINDING_SCHEMA: JSONSchema = {
    "type": "object", "additionalProperties": False,
    "required": ["concerns", *ANSWER_FIELDS[:-1]],
    "properties": {
        "concerns": {"type": "string", "enum": ["harness", "task_logic"]},
        "is_culprit": {"type": "boolean"},
        "locked_module": {"type": ["string", "null"], "enum": [*MODULES, None]},
        "divergence": {"type": "string"},
        "would_change_outcome": {"type": "boolean"},
        "fixable_now": {"type": "boolean"},
        "suggested_change": {"type": "string"},
        "mechanism": {"type": "string"},
        "evidence_steps": {"type": "array", "items": {"type": "integer"}},
    },
}
EXAMPLE = ('{"concerns": "harness", "is_culprit": true, "locked_module": "tool_use", "divergence": "...", '
           '"would_change_outcome": true, "fixable_now": true, "suggested_change": "...", '
           '"mechanism": "parse-repair", "evidence_steps": [3]}')


class LLMAnalyst:
    """Analyst backed by any :class:`~modularrsi.models.base.ChatModel` (one call per finding)."""

    def __init__(self, model: ChatModel, excerpt_window: int = 2, excerpt_chars: int = 160, repairs: int = 1,
                 thresholds: SimAnalystConfig | None = None):
        self.model = model
        self.thresholds = thresholds or SimAnalystConfig()
        self.name = f"llm:{model.name}"
        self.excerpt_window = excerpt_window
        self.excerpt_chars = excerpt_chars
        self.repairs = repairs

    async def analyse(self, evidence: TaskEvidence, lens: Module, kind: Kind) -> Finding:
        messages = [Message("system", SYSTEM, "analysis_request"),
                    Message("user", self.prompt(evidence, lens, kind), "analysis_request")]
        reply = await ask_json(self.model, messages, "finding", FINDING_SCHEMA,
                               lambda text: parse_finding(text, lens, kind), EXAMPLE, self.repairs)
        if reply.value is None:
            return _failed(evidence, lens, kind, self.name, reply.error)
        fields = drop_task_logic(reply.value, evidence.instruction)
        fields = drop_unmeasured(fields, lens, ranked(blamed(evidence, kind, self.thresholds)))
        return Finding(**strength_fields(evidence), lens=lens, kind=kind, analyst=self.name, **fields)

    def prompt(self, evidence: TaskEvidence, lens: Module, kind: Kind) -> str:
        parts = [
            f"Lens: {MODULE_TITLES[lens]} ({lens}). This module owns {MODULE_SCOPE[lens]}. "
            f"Its contract: {_contract(lens)}. Blame or change nothing outside it.",
            f"Task {evidence.task}: bucket {evidence.bucket}; {evidence.pass_count}/{len(evidence.epoch_attempts)} "
            f"attempts passed; analysis kind {kind}; pair {evidence.pair_source or 'none'}.",
        ]
        if evidence.instruction:
            parts.append("Instruction (shortened): " + _clip(evidence.instruction, 600))
        parts.append("Attempts:\n" + "\n".join(
            f"  a{a.index}{' (from memory)' if a.from_memory else ''}: {'PASS' if a.passed else 'FAIL'}, "
            f"{a.steps} steps, signals {_compact(a.signals)}" for a in evidence.attempts))
        symptoms = measured(evidence, kind, self.thresholds)
        parts.append("Harness symptoms measured in these attempts, per module (a symptom that separates failing "
                     "from passing attempts is the likeliest harness culprit):\n" + (symptoms or "  none"))
        parts.extend(self._excerpts(evidence))
        parts.append(_QUESTION.format(lens=lens, modules=", ".join(MODULES),
                                      mechanisms=", ".join(mechanisms())))
        return "\n\n".join(parts)

    def _excerpts(self, evidence: TaskEvidence) -> list[str]:
        blocks = []
        for label, keys in (("passing", evidence.pass_keystrokes), ("failing", evidence.fail_keystrokes)):
            if not keys:
                continue
            centre = evidence.divergence_step if evidence.divergence_step is not None else len(keys) - 1
            lo, hi = max(0, centre - self.excerpt_window), min(len(keys), centre + self.excerpt_window + 1)
            lines = [f"  [{i}]{' <- divergence' if i == evidence.divergence_step else ''} "
                     f"{_clip(keys[i], self.excerpt_chars)}" for i in range(lo, hi)]
            blocks.append(f"Keystrokes of the {label} trajectory, steps {lo}-{hi - 1}:\n" + "\n".join(lines))
        return blocks


_QUESTION = """Harness or task? The harness is the code around the model: how its replies are parsed into \
commands, what feedback it gets after a parse error, how terminal output is cut before the model reads it, how \
the history is kept short, how the loop reacts to repeats and errors, how a completion claim is checked. The \
task logic is what the commands should have done to solve this task (a wrong algorithm, a missed requirement, a \
wrong file or value). A problem with the task's solution is NOT a harness finding: set concerns to "task_logic", \
is_culprit false and suggested_change empty. Only a harness behaviour that would recur on other tasks is \
concerns "harness".

Counterfactual rule: is_culprit is true only if changing the {lens} module would turn the failures \
into passes (or, for efficiency, remove the wasted steps). If the evidence blames another module, set is_culprit \
false and locked_module to that module ({modules}). If not a culprit, suggested_change must be empty. A suggested \
change describes harness behaviour and must be general: never name the task, its files, its data or constants \
tuned to it.

Answer with one JSON object with these fields:
{{"concerns": "harness" or "task_logic", "is_culprit": bool, "locked_module": str or null, \
"divergence": str (what differs and where), "would_change_outcome": bool, "fixable_now": bool, \
"suggested_change": str, "mechanism": str (a short tag such as {mechanisms}), "evidence_steps": [int]}}"""


def _contract(lens: str) -> str:
    return "; ".join(f"{role}: {', '.join(calls)}" for (module, role), calls in CONTRACTS.items() if module == lens)


def _clip(text: str, limit: int) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _compact(signals: Signals) -> str:
    shown = {k: (f"{len(v)} items, max {max(v)}, sum {sum(v)}" if isinstance(v, list) and len(v) > 6
                 and all(isinstance(x, int | float) for x in v) else v)
             for k, v in sorted(signals.model_dump(mode="json").items())}
    return _clip(json.dumps(shown, default=str), 500)


def _failed(evidence: TaskEvidence, lens: Module, kind: Kind, analyst: str, error: str) -> Finding:
    return Finding(**strength_fields(evidence), lens=lens, kind=kind, is_culprit=False, analyst=analyst,
                   parse_error=_clip(error, 300))


def parse_finding(text: str, lens: Module, kind: Kind) -> tuple[Unvalidated | None, str | None]:
    """Finding fields from a reply, or None and one line saying what is wrong with it."""
    obj = extract_object(text)
    if obj is None:
        return None, f"no JSON object with finding fields in the reply: {_clip(text, 120)!r}"
    if to_bool(obj.get("is_culprit"), None) is None:
        return None, f"is_culprit must be true or false, not {_clip(repr(obj.get('is_culprit')), 60)}"
    try:
        fields = coerce(obj, lens, kind)
        Finding(task="-", lens=lens, kind=kind, **fields)  # the invariants, checked before anyone relies on them
    except (ValueError, TypeError) as exc:
        return None, f"unusable finding: {_clip(str(exc), 200)}"
    return fields, None


def extract_object(text: str) -> Unvalidated | None:
    """The finding object in ``text``: the whole reply, a fenced block, or the first ``{...}`` that parses."""
    candidates = [text.strip(), *re.findall(r"```(?:json)?\s*(.*?)```", text, re.S)]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        found = _as_object(_loads(candidate))
        if found is not None:
            return found
    for match in re.finditer(r"\{", text):
        try:
            found = _as_object(decoder.raw_decode(text, match.start())[0])
        except ValueError:
            continue
        if found is not None:
            return found
    start, end = text.find("{"), text.rfind("}")
    return _as_object(_loads(text[start:end + 1])) if 0 <= start < end else None


def _loads(text: str) -> Any:
    """JSON, else JSON without trailing commas, else a Python literal; None when none parses."""
    for attempt in (text, re.sub(r",\s*([}\]])", r"\1", text)):
        try:
            return json.loads(attempt)
        except ValueError:
            pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _as_object(value: Any) -> Unvalidated | None:
    """A dict carrying finding fields, unwrapping ``{"finding": {...}}`` and ``[{...}]``."""
    if isinstance(value, list) and value:
        value = value[0]
    if not isinstance(value, dict):
        return None
    if not any(k in value for k in ANSWER_FIELDS):
        inner = [v for v in value.values() if isinstance(v, dict) and any(k in v for k in ANSWER_FIELDS)]
        return inner[0] if inner else None
    return value


def coerce(obj: Unvalidated, lens: Module, kind: Kind) -> Unvalidated:
    """Finding fields from a loosely typed answer, with the counterfactual and lens rules applied."""
    culprit = to_bool(obj.get("is_culprit"), False)
    locked = to_module(obj.get("locked_module"))
    if culprit and locked not in (None, lens):
        culprit = False  # it blames another module: kept for that module's lane
    dropped = _dropped(obj)
    if dropped:
        culprit, locked = False, None
    return {
        "dropped": dropped,
        "is_culprit": culprit,
        "locked_module": lens if culprit else locked,
        "divergence": to_text(obj.get("divergence")),
        "would_change_outcome": kind != "efficiency" and to_bool(obj.get("would_change_outcome"), culprit),
        "fixable_now": culprit and to_bool(obj.get("fixable_now"), True),
        "suggested_change": to_text(obj.get("suggested_change")) if culprit else "",
        "mechanism": to_tag(obj.get("mechanism")),
        "evidence_steps": to_steps(obj.get("evidence_steps")),
    }


def _dropped(obj: Unvalidated) -> str | None:
    """Why a finding is not about the harness (None when it is)."""
    said = to_text(obj.get("divergence")) or to_text(obj.get("suggested_change"))
    if to_tag(obj.get("concerns")) in ("task-logic", "task"):
        return _clip(f"task logic, not harness behaviour: {said or 'no detail given'}", 300)
    change = to_text(obj.get("suggested_change"))
    if to_bool(obj.get("is_culprit"), False) and change and not names_harness_mechanism(change):
        return _clip(f"the suggested change names no harness mechanism (task logic?): {change}", 300)
    return None


def drop_task_logic(fields: Unvalidated, instruction: str, limit: int = 3) -> Unvalidated:
    """``fields`` of a culprit, dropped when its suggested change repeats ``limit`` or more of the task's own words."""
    words = task_words(fields["suggested_change"], instruction) if fields["is_culprit"] else []
    if len(words) < limit:
        return fields
    reason = f"the suggested change repeats the task's own words ({', '.join(words[:6])}): task logic?"
    return {**fields, "is_culprit": False, "locked_module": None, "fixable_now": False, "suggested_change": "",
            "would_change_outcome": False, "dropped": reason}


def drop_unmeasured(fields: Unvalidated, lens: Module, blamed_modules: list[str]) -> Unvalidated:
    """A culprit claim for ``lens`` when the measured symptoms blame other modules and not this one: kept as
    a non-culprit finding pointing at the module they blame most (a small model calls every lens it is asked
    about the culprit). With no measured symptom the analyst's own reading stands."""
    if not fields["is_culprit"] or fields.get("dropped") or not blamed_modules or lens in blamed_modules:
        return fields
    reason = f"the measured symptoms blame {', '.join(blamed_modules)}, not {lens}"
    return {**fields, "is_culprit": False, "locked_module": blamed_modules[0], "fixable_now": False,
            "suggested_change": "", "would_change_outcome": False, "dropped": reason}


def to_bool(value: Any, default: bool | None) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("true", "yes", "y", "1"):
            return True
        if word in ("false", "no", "n", "0", "none", "null"):
            return False
    return default


def to_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return "; ".join(to_text(v) for v in value)
    return json.dumps(value, default=str)


def to_module(value: Any) -> Module | None:
    """A module name from ``"Task Completion Detection"``, ``"tool-use"``, ``"context"``…; None if unknown."""
    if not isinstance(value, str):
        return None
    key = re.sub(r"[^a-z]+", "_", value.lower()).strip("_")
    for module, title in MODULE_TITLES.items():
        if key in (module, re.sub(r"[^a-z]+", "_", title.lower())):
            return module  # type: ignore[return-value]
    return {"loop": "agent_loop", "tools": "tool_use", "observations": "observation",
            "context_management": "context", "task_completion": "completion"}.get(key)  # type: ignore[return-value]


def to_tag(value: Any) -> str:
    return re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")[:40] if isinstance(value, str) else ""


def to_steps(value: Any) -> list[int]:
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int | float):
        return [int(value)] if math.isfinite(value) and value >= 0 else []
    if isinstance(value, str):
        return [int(d) for d in re.findall(r"\d+", value)]
    if isinstance(value, list):
        items = [item.get("step", item.get("step_id")) if isinstance(item, dict) else item for item in value]
        return sorted({s for item in items for s in to_steps(item)})
    return []
