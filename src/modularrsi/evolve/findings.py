"""Plain data of the analysis stage: what it reads (:class:`TaskEvidence`) and what it writes
(:class:`Finding`, one per task and lens; :class:`Direction`, findings merged across tasks).

Invariants (checked on construction):

- counterfactual rule: a finding that is not a culprit suggests no change (``suggested_change == ""``);
- a culprit finding is locked to the lens it was analysed under (``locked_module == lens``); evidence
  blaming another module is kept as ``is_culprit=False, locked_module=<that module>`` for that lane;
- a finding ``dropped`` as not about the harness (task logic) is not a culprit;
- a direction's ``raw_support`` is the number of distinct tasks among its findings, and its ``summary``
  is built from its findings' harness-level content (:func:`direction_summary`), never one task's fix.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from modularrsi.evolve.signals import Signals
from modularrsi.harness.protocols import Module

Kind = Literal["contrastive", "single-sided", "efficiency"]
PairSource = Literal["same-epoch", "memory"]

#: The mechanism tag a culprit finding of each module most often names (analysts may name others).
MECHANISMS: dict[str, str] = {
    "completion": "completion-evidence-check", "agent_loop": "loop-guard", "observation": "observation-trim",
    "context": "early-summary", "tool_use": "parse-repair",
}


class AttemptEvidence(BaseModel):
    """One attempt as the analysts see it. ``from_memory`` marks a passing attempt of an earlier epoch
    recalled from the trajectory memory; it never counts in ``pass_count``."""

    model_config = ConfigDict(extra="forbid")

    index: int = Field(description="Attempt index k (trial <task>__a<k>).")
    passed: bool
    steps: int = Field(default=0, ge=0, description="Agent steps taken.")
    signals: Signals = Field(default_factory=Signals, description="Deterministic facts about the attempt.")
    from_memory: bool = False


class TaskEvidence(BaseModel):
    """Everything analysis needs about one task in one epoch (built from buckets + signals by the pipeline).

    ``pass_keystrokes`` / ``fail_keystrokes`` hold one string per agent step of the paired passing and
    failing trajectories; ``divergence_step`` is the 0-based index of their first differing step."""

    model_config = ConfigDict(extra="forbid")

    task: str
    bucket: str = Field(description="Bucket name, e.g. mixed, fixable_fail, all_pass_wasteful.")
    attempts: list[AttemptEvidence]
    pass_keystrokes: list[str] | None = None
    fail_keystrokes: list[str] | None = None
    divergence_step: int | None = Field(default=None, ge=0)
    pair_source: PairSource | None = None
    instruction: str = Field(default="", description="The task's instruction (shown, shortened, to LLM analysts).")

    @property
    def epoch_attempts(self) -> list[AttemptEvidence]:
        return [a for a in self.attempts if not a.from_memory]

    @property
    def pass_count(self) -> int:
        return sum(a.passed for a in self.epoch_attempts)

    @property
    def failing(self) -> list[AttemptEvidence]:
        return [a for a in self.epoch_attempts if not a.passed]

    @property
    def passing(self) -> list[AttemptEvidence]:
        """Passing attempts of this epoch, and the recalled one when the pair comes from memory."""
        return [a for a in self.attempts if a.passed]


def strength_fields(evidence: TaskEvidence) -> dict[str, Any]:
    """The fields every finding of ``evidence`` copies from it (identity and vote-strength inputs)."""
    return {"task": evidence.task, "bucket": evidence.bucket, "pass_count": evidence.pass_count,
            "attempts": len(evidence.epoch_attempts), "pair_source": evidence.pair_source}


class Finding(BaseModel):
    """One task's diagnosis under one lens (the paper's JSON finding, plus what voting needs).

    ``would_change_outcome``: changing ``locked_module`` would turn the failure into a pass (always
    False for efficiency findings: the task already passes). ``fixable_now``: the change fits inside
    the lens's module as it is (False when the evidence blames another module). ``pass_count``,
    ``attempts`` and ``pair_source`` are the strength inputs of the evidence-weighted vote."""

    model_config = ConfigDict(extra="forbid")

    task: str
    lens: Module
    kind: Kind
    is_culprit: bool
    locked_module: Module | None = None
    divergence: str = ""
    would_change_outcome: bool = False
    fixable_now: bool = False
    suggested_change: str = ""
    mechanism: str = Field(default="", description="Short tag, e.g. loop-guard, completion-evidence-check.")
    evidence_steps: list[int] = Field(default_factory=list)
    bucket: str = ""
    pass_count: int = Field(default=0, ge=0)
    attempts: int = Field(default=0, ge=0)
    pair_source: PairSource | None = None
    analyst: str = ""
    parse_error: str | None = Field(default=None, description="Set when the analyst's answer was unusable.")
    dropped: str | None = Field(default=None, description="Set when the finding is about the task's own logic, "
                                "not the harness: why it was dropped.")

    @model_validator(mode="after")
    def _invariants(self) -> Finding:
        if self.dropped and self.is_culprit:
            raise ValueError(f"finding {self.task}/{self.lens}: a dropped finding cannot be a culprit")
        if not self.is_culprit and self.suggested_change:
            raise ValueError(f"finding {self.task}/{self.lens}: not a culprit, so it may not suggest a change")
        if self.is_culprit and self.locked_module != self.lens:
            raise ValueError(f"finding {self.task}/{self.lens}: a culprit is locked to its lens, "
                             f"not {self.locked_module}")
        return self

    @property
    def pass_fraction(self) -> float:
        return self.pass_count / self.attempts if self.attempts else 0.0


class Direction(BaseModel):
    """Findings of several tasks merged into one candidate change of one module.

    ``vote`` is the evidence-weighted vote (see :func:`modularrsi.evolve.aggregate.evidence_weight`);
    ``raw_support`` the number of distinct supporting tasks."""

    model_config = ConfigDict(extra="forbid")

    id: str
    module: Module
    mechanism: str
    summary: str
    tasks: list[str]
    findings: list[Finding]
    vote: float
    raw_support: int

    @model_validator(mode="after")
    def _support(self) -> Direction:
        if self.raw_support != len(set(self.tasks)) or len(self.tasks) != len(set(self.tasks)):
            raise ValueError(f"direction {self.id}: raw_support must equal the number of distinct tasks")
        return self


#: Words that name a harness mechanism (how replies are parsed, what the model reads, the loop, the
#: history, completion checks). A suggested change with none of them is about something else.
HARNESS_WORDS = re.compile(
    r"\b(pars\w*|repl(y|ies)|json|format\w*|escape\w*|feedback|prompt\w*|output|observation\w*|terminal|screen|"
    r"truncat\w*|trim\w*|cut|history|context|summar\w*|compact\w*|loop\w*|turns?|repeat\w*|interven\w*|"
    r"complet\w*|claims?|verif\w*|checks?|commands?|keystrokes?|retr(y|ies)|errors?|messages?|model|harness|"
    r"tool\w*|steps?)\b", re.I)


def names_harness_mechanism(text: str) -> bool:
    return HARNESS_WORDS.search(text) is not None


_WORD = re.compile(r"[a-z][a-z_]{4,}")
_COMMON = frozenset({
    "about", "above", "after", "again", "against", "before", "being", "below", "between", "could", "different",
    "during", "every", "other", "should", "their", "there", "these", "those", "through", "under", "until", "where",
    "which", "while", "would", "update", "updated", "correct", "correctly", "handle", "handles", "handling",
    "change", "changes", "module", "modules", "agent", "harness", "times", "multiple", "ensure", "instead",
    "value", "values", "number"})


def task_words(text: str, instruction: str) -> list[str]:
    """Words of five letters or more that ``text`` repeats from the task's ``instruction``, harness and common
    words aside: a suggestion built from them is about the task's own data and logic, not the harness."""
    own = set(_WORD.findall(instruction.lower()))
    shared = {w for w in _WORD.findall(text.lower()) if w in own and w not in _COMMON
              and not names_harness_mechanism(w)}
    return sorted(shared)


def direction_summary(module: str, mechanism: str, findings: list[Finding], tasks: list[str]) -> str:
    """A direction's text from its findings' harness-level content: the suggested changes that name a harness
    mechanism, most supported first (ties: in the order given, strongest first; one text when they agree),
    task names masked; never one task's fix alone when tasks support it with different words."""
    usable = [f.suggested_change.strip() for f in findings
              if f.is_culprit and not f.dropped and names_harness_mechanism(f.suggested_change)]
    counts = Counter(usable)
    ranked = sorted(counts, key=lambda c: -counts[c])  # ties: the strongest finding's words first
    if not ranked:
        return f"{module}: {mechanism or 'change'} (no harness-level suggestion among the findings)"
    if len(ranked) == 1:
        text = ranked[0]
    else:
        head = f"{module} / {mechanism or 'change'}, supported by {len(tasks)} tasks; the findings suggest: "
        text = head + " | ".join(ranked[:3])
    for name in sorted({t for t in tasks if len(t) >= 3}, key=len, reverse=True):  # "a" is a word, not a task
        text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", "[task]", text, flags=re.IGNORECASE)
    return text
