"""The reward-blind review gate: a deterministic pre-screen, then (optionally) one reviewer-model call.

Reward-blindness is an invariant of what the reviewer receives: the locked module, the editor's
description, the direction summary and the diff — never rewards, pass rates, test or solution
contents, or which tasks supported the change. It holds by construction:

- the pre-screen (:mod:`.prescreen`) rejects a proposal whose added lines or description mention
  outcomes or grading material, so the diff and description shown are outcome-free;
- the direction summary is redacted line by line (outcome talk, test material and task names);
- the finished prompt is checked once more, and a proposal whose prompt would still carry outcome
  material is rejected without calling the model (conservative).

With no reviewer model (the ``sim`` world) the pre-screen decides. With one, the model must answer
``{"approve": bool, "reason": str}`` (:data:`REVIEW_SCHEMA`, sent as a JSON-schema ``response_format``
where the endpoint takes one). An off-format answer (prose, empty, cut off at the token limit, wrong
types) is shown back to the reviewer ``repairs`` times with what was wrong; still off-format — or a model
failure — the proposal is rejected, and the verdict says why and keeps the answer.
"""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.evolve.gates import GateVerdict
from modularrsi.evolve.gates.prescreen import OUTCOME, TEST_CONTENT, PrescreenRules, prescreen
from modularrsi.evolve.proposal import Proposal
from modularrsi.harness.protocols import MODULE_TITLES
from modularrsi.models.base import ChatModel, Message
from modularrsi.models.structured import ask_json

GATE = "review"
REDACTED = "[redacted: outcome or test material]"
SYSTEM = (
    "You review one proposed change to one module of an LLM agent harness (the code around the model that "
    "runs the loop, parses replies into terminal commands, shapes terminal output, keeps the history short "
    "and decides when a task is done). You are shown the module, the editor's description, the direction "
    "the change addresses and the diff. You are not shown, and must not ask for, any task outcome.\n\n"
    "Approve only if both hold:\n"
    "1. The causal chain is concrete: a harness behaviour observed in agent runs, the mechanism the change "
    "adds or alters, and why that mechanism changes the behaviour.\n"
    "2. The change is generic: it would act the same way on many different tasks, and contains nothing "
    "specific to one task (task names, task files or paths, constants tuned to one task, special-cased "
    "strings from one task's data).\n\n"
    'Answer with exactly one JSON object and nothing else: {"approve": true or false, "reason": "<one '
    'sentence>"}')
REVIEW_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["approve", "reason"],
                 "properties": {"approve": {"type": "boolean"}, "reason": {"type": "string"}}}
EXAMPLE = '{"approve": false, "reason": "one sentence"}'


class ReviewConfig(BaseModel):
    """Settings of the review gate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rules: PrescreenRules = Field(default_factory=PrescreenRules, description="The pre-screen's rules.")
    max_diff_chars: int = Field(default=40_000, ge=1000, description="Longer diffs are cut (head kept) for "
                                "the reviewer; the pre-screen always reads the whole diff.")
    repairs: int = Field(default=1, ge=0, description="Times an off-format answer is shown back to the reviewer "
                         "before the proposal is rejected.")


class ReviewGate:
    """``ReviewGate(reviewer_model | None, task_names)``: pre-screen, then one reviewer call if configured.

    ``task_names`` are the evolution pool's task names (the pre-screen rejects changes naming any of them,
    as well as the proposal's own supporting tasks). Pass ``None`` as the model in the ``sim`` world: the
    simulator does not review code, so the pre-screen alone decides there. The reviewer should be a
    different model from the editor (``ModelRoles.warnings`` says so)."""

    name = GATE

    def __init__(self, reviewer_model: ChatModel | None, task_names: list[str] | None = None,
                 config: ReviewConfig | None = None):
        self.model = reviewer_model
        self.task_names = list(task_names or [])
        self.config = config or ReviewConfig()

    async def check(self, proposal: Proposal) -> GateVerdict:
        names = self.task_names + proposal.supporting_tasks
        rejected = prescreen(proposal, names, self.config.rules)
        if rejected is not None:
            return rejected
        if self.model is None:
            return GateVerdict.ok(GATE, "pre-screen passed (no reviewer model configured)", stage="prescreen")
        messages = review_messages(proposal, names, self.config.max_diff_chars)
        leak = OUTCOME.search(messages[-1].content)
        if leak:
            return GateVerdict.fail(GATE, f"review prompt would carry outcome material ('{leak.group(0)}')",
                                stage="reviewer")
        reply = await ask_json(self.model, messages, "review", REVIEW_SCHEMA, _parse, EXAMPLE, self.config.repairs)
        if reply.value is None and reply.calls == 0:  # BudgetExceeded propagates: the run stops, resumes here
            return GateVerdict.fail(GATE, f"reviewer unavailable: {reply.error}", stage="reviewer",
                                    model=self.model.name)
        if reply.value is None:
            return GateVerdict.fail(GATE, f"reviewer answer unparseable after {reply.calls} tries: {reply.error}",
                                    stage="reviewer", model=self.model.name, answer=reply.raw[:500])
        approve, reason = reply.value
        return GateVerdict(gate=GATE, passed=approve, reason=f"reviewer: {reason}",
                           details={"stage": "reviewer", "model": self.model.name, "repairs": reply.repairs})


def redact(text: str, task_names: list[str]) -> str:
    """``text`` with every line that carries outcome or test material replaced, and task names masked."""
    lines = [REDACTED if OUTCOME.search(line) or TEST_CONTENT.search(line) else line for line in text.splitlines()]
    out = "\n".join(lines)
    for name in sorted(set(task_names), key=len, reverse=True):
        if name:
            out = re.sub(re.escape(name), "[task]", out, flags=re.IGNORECASE)
    return out


def review_messages(proposal: Proposal, task_names: list[str], max_diff_chars: int) -> list[Message]:
    """The reviewer's conversation: the instructions, then module, description, direction and diff."""
    diff = proposal.diff
    if len(diff) > max_diff_chars:
        diff = diff[:max_diff_chars] + f"\n[... diff cut: {len(proposal.diff) - max_diff_chars} more chars ...]\n"
    module = MODULE_TITLES.get(proposal.locked_module, proposal.locked_module)
    body = (f"Module: {module} ({proposal.locked_module})\n\n"
            f"Editor's description:\n{proposal.description.strip()}\n\n"
            f"Direction addressed (merged analysis of agent runs):\n"
            f"{redact(proposal.direction.strip(), task_names)}\n\n"
            f"Diff:\n{diff}")
    return [Message("system", SYSTEM, "review_instructions"), Message("user", body, "review_request")]


def _parse(text: str) -> tuple[tuple[bool, str] | None, str | None]:
    """``((approve, reason), None)``, or ``(None, what is wrong)``."""
    stripped = re.sub(r"^```(?:json)?\s*|\s*```$", "", text.strip())
    start, end = stripped.find("{"), stripped.rfind("}")
    if start < 0 or end <= start:
        return None, "no JSON object in the answer"
    try:
        data = json.loads(stripped[start:end + 1])
    except ValueError as exc:
        return None, f"the JSON object does not parse ({exc})"
    if not isinstance(data, dict) or not isinstance(data.get("approve"), bool):
        return None, "'approve' must be true or false"
    reason = data.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        return None, "'reason' must be a non-empty sentence"
    return (data["approve"], reason.strip()), None
