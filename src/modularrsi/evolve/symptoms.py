"""How each module's failure shows in an attempt's measured signals, declared once for both analysts.

A *symptom* scores an attempt's :class:`~modularrsi.evolve.signals.Signals` for one module (> 0: present,
bigger: worse): unparseable replies (Tool Use), a command repeated (Agent Loop), an oversized observation
(Observation), a long history never summarised or refused replies sent again word for word (Context: what
the model copies is what its context keeps), a completion claim with no verifying command (Completion), each
at a threshold of :class:`SimAnalystConfig`. An attempt *blames* a module when it failed and one of the
module's symptoms is worse than in every passing attempt of the task (contrastive evidence), or when it
failed with the symptom at all (single-sided); a passing attempt with a wasteful symptom blames it for
efficiency (:func:`blamed`). A module's symptoms are read in their order: the first that blames an attempt
is the one it is blamed for. The rule-based analyst (:mod:`modularrsi.offline.sim_analyst`) decides by
these rules alone; the LLM analyst is shown them as measurements (:func:`measured`) and decides itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.evolve.findings import AttemptEvidence, Kind, TaskEvidence
from modularrsi.evolve.signals import Signals
from modularrsi.harness.protocols import MODULES


class SimAnalystConfig(BaseModel):
    """Thresholds at which a signal is a symptom: the rule-based analyst's rules (:mod:`modularrsi.offline.
    sim_analyst`) and the measurements the LLM analyst is shown."""

    model_config = ConfigDict(extra="forbid")

    parse_errors: int = Field(default=2, ge=1, description="Unparseable replies in one attempt.")
    repeated_commands: int = Field(default=3, ge=1, description="Repeats of one command in one attempt.")
    large_observation_bytes: int = Field(default=8_000, ge=1, description="Largest single observation.")
    long_history_bytes: int = Field(default=40_000, ge=1, description="History size with no compaction.")
    resent_refusals: int = Field(default=2, ge=1, description="Refused replies sent again word for word in one "
                                 "attempt.")


@dataclass(frozen=True)
class Symptom:
    """How one module shows in an attempt's signals: ``score`` > 0 means present (bigger = worse)."""

    score: Callable[[Signals, SimAnalystConfig], float]
    describe: Callable[[float], str]
    step_prefixes: tuple[str, ...]
    change: str
    mechanism: str  # the finding's tag (a module's first symptom: findings.MECHANISMS[module])


def _at_least(value: float, threshold: float) -> float:
    return float(value) if value >= threshold else 0.0


def _largest(signals: Signals) -> float:
    return float(max([*signals.observation_bytes, signals.max_observation_bytes]))


def _premature(s: Signals, c: SimAnalystConfig) -> float:
    return float(s.completion_without_evidence) if s.ending in ("completed", None) else 0.0


def _unsummarised(s: Signals, c: SimAnalystConfig) -> float:
    history = float(sum(s.observation_bytes))
    return 0.0 if s.compactions else _at_least(history, c.long_history_bytes)


SYMPTOMS: dict[str, tuple[Symptom, ...]] = {
    "tool_use": (Symptom(
        lambda s, c: _at_least(s.parse_errors, c.parse_errors),
        lambda v: f"{v:.0f} unparseable replies", ("parse_error",),
        "When a reply cannot be parsed, repair common format slips (extract the JSON object, drop trailing "
        "commas, coerce types) before asking again, and state the exact expected format in the feedback.",
        "parse-repair"),),
    "agent_loop": (Symptom(
        lambda s, c: _at_least(s.repeated_commands, c.repeated_commands),
        lambda v: f"the same command repeated {v:.0f} times", ("repeat",),
        "Detect the model repeating the same command over several turns and intervene with a message that "
        "names the repetition and asks for a different approach.", "loop-guard"),),
    "observation": (Symptom(
        lambda s, c: _at_least(_largest(s), c.large_observation_bytes),
        lambda v: f"an observation of {v:.0f} bytes", ("observation", "large_observation"),
        "Shorten long terminal output before the model reads it: keep head and tail with a note of what was "
        "cut, under a lower byte limit than now.", "observation-trim"),),
    "context": (
        Symptom(_unsummarised, lambda v: f"a {v:.0f}-byte history never summarised", ("history", "compaction"),
                "Summarise the history proactively once it grows past a size threshold, keeping the task's "
                "requirements and the remaining steps of the plan in the summary.", "early-summary"),
        Symptom(lambda s, c: _at_least(s.resent_refusals, c.resent_refusals),
                lambda v: f"{v:.0f} refused replies sent again word for word", ("resent_refusal",),
                "When the parser refuses a reply, take the refused reply out of the history and ask the message "
                "it answered again with the error named, so that the model writes the reply afresh instead of "
                "copying its own refused text.", "forget-refused")),
    "completion": (Symptom(
        _premature, lambda v: f"{v:.0f} completion claim(s) with no verifying command",
        ("completion", "unevidenced"),
        "Before accepting a completion claim, ask for evidence: re-read the requirements one by one and run "
        "a command verifying each; accept the claim only after that check.", "completion-evidence-check"),),
}
#: Symptoms that make a passing attempt wasteful (completion and context problems show as failures).
EFFICIENCY_MODULES = ("agent_loop", "observation", "tool_use")


class Hit(NamedTuple):
    """An attempt that blames a module: the symptom it shows and that symptom's score."""

    attempt: AttemptEvidence
    value: float
    symptom: Symptom


#: module -> the attempts that blame it.
Hits = dict[str, list[Hit]]


def mechanisms() -> list[str]:
    """Every symptom's mechanism tag, sorted (what the LLM analyst is offered)."""
    return sorted({symptom.mechanism for listed in SYMPTOMS.values() for symptom in listed})


def blamed(evidence: TaskEvidence, kind: Kind, config: SimAnalystConfig) -> Hits:
    """The attempts that blame each module under ``kind`` of analysis (the module docstring's rule)."""
    hits: Hits = {}
    modules = EFFICIENCY_MODULES if kind == "efficiency" else MODULES
    floor = {(m, i): 0.0 for m in modules for i in range(len(SYMPTOMS[m]))}
    if kind == "contrastive":
        for attempt in evidence.passing:
            for key in floor:
                floor[key] = max(floor[key], SYMPTOMS[key[0]][key[1]].score(attempt.signals, config))
    for attempt in evidence.epoch_attempts if kind == "efficiency" else evidence.failing:
        for module in modules:
            for i, symptom in enumerate(SYMPTOMS[module]):
                if (value := symptom.score(attempt.signals, config)) > floor[module, i]:
                    hits.setdefault(module, []).append(Hit(attempt, value, symptom))
                    break
    return hits


def ranked(hits: Hits) -> list[str]:
    """The blamed modules, most blaming attempts first (ties in :data:`MODULES` order)."""
    return sorted(hits, key=lambda m: (-len(hits[m]), MODULES.index(m)))


#: kind of analysis -> (what a blamed symptom does, what an unblamed one does not)
_BLAMES = {"contrastive": ("separates failing from passing", "does not separate failing from passing"),
           "single-sided": ("shown by failing attempts", "not shown by failing attempts"),
           "efficiency": ("wastes steps of passing attempts", "wastes no steps")}


def measured(evidence: TaskEvidence, kind: Kind, config: SimAnalystConfig) -> str:
    """The symptoms as the LLM analyst reads them: per module, each attempt showing it, and which attempts
    blame the module (empty when no attempt shows any)."""
    hits = blamed(evidence, kind, config)
    lines = []
    for module in MODULES:
        shown = [f"a{a.index} {'PASS' if a.passed else 'FAIL'}: {symptom.describe(v)}"
                 for a in evidence.attempts for symptom in SYMPTOMS[module]
                 if (v := symptom.score(a.signals, config)) > 0]
        if not shown:
            continue
        blames, clears = _BLAMES[kind]
        verdict = (f"{blames} (blamed by {', '.join(f'a{h.attempt.index}' for h in hits[module])})"
                   if module in hits else clears)
        lines.append(f"  {module}: {'; '.join(shown)} - {verdict}")
    return "\n".join(lines)
