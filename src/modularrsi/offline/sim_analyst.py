"""The offline analyst: deterministic rules over an attempt's signals (a test double for an LLM analyst).

Part of the offline world: the evolution reaches it by name (:mod:`modularrsi.util.wing`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from modularrsi.evolve.analysis import SimAnalystConfig, finding_kind
from modularrsi.evolve.findings import MECHANISMS, AttemptEvidence, Finding, Kind, Module, TaskEvidence, strength_fields
from modularrsi.evolve.signals import Signals
from modularrsi.harness.protocols import MODULES


def _largest(signals: Signals) -> float:
    return float(max([*signals.observation_bytes, signals.max_observation_bytes]))


@dataclass(frozen=True)
class Symptom:
    """How one module shows in an attempt's signals: ``score`` > 0 means present (bigger = worse)."""

    score: Callable[[Signals, SimAnalystConfig], float]
    describe: Callable[[float], str]
    step_prefixes: tuple[str, ...]
    change: str


def _at_least(value: float, threshold: float) -> float:
    return float(value) if value >= threshold else 0.0


def _premature(s: Signals, c: SimAnalystConfig) -> float:
    return float(s.completion_without_evidence) if s.ending in ("completed", None) else 0.0


def _unsummarised(s: Signals, c: SimAnalystConfig) -> float:
    history = float(sum(s.observation_bytes))
    return 0.0 if s.compactions else _at_least(history, c.long_history_bytes)


SYMPTOMS: dict[str, Symptom] = {
    "tool_use": Symptom(
        lambda s, c: _at_least(s.parse_errors, c.parse_errors),
        lambda v: f"{v:.0f} unparseable replies", ("parse_error",),
        "When a reply cannot be parsed, repair common format slips (extract the JSON object, drop trailing "
        "commas, coerce types) before asking again, and state the exact expected format in the feedback."),
    "agent_loop": Symptom(
        lambda s, c: _at_least(s.repeated_commands, c.repeated_commands),
        lambda v: f"the same command repeated {v:.0f} times", ("repeat",),
        "Detect the model repeating the same command over several turns and intervene with a message that "
        "names the repetition and asks for a different approach."),
    "observation": Symptom(
        lambda s, c: _at_least(_largest(s), c.large_observation_bytes),
        lambda v: f"an observation of {v:.0f} bytes", ("observation", "large_observation"),
        "Shorten long terminal output before the model reads it: keep head and tail with a note of what was "
        "cut, under a lower byte limit than now."),
    "context": Symptom(
        _unsummarised, lambda v: f"a {v:.0f}-byte history never summarised", ("history", "compaction"),
        "Summarise the history proactively once it grows past a size threshold, keeping the task's "
        "requirements and the remaining steps of the plan in the summary."),
    "completion": Symptom(
        _premature, lambda v: f"{v:.0f} completion claim(s) with no verifying command",
        ("completion", "unevidenced"),
        "Before accepting a completion claim, ask for evidence: re-read the requirements one by one and run "
        "a command verifying each; accept the claim only after that check."),
}
#: Symptoms that make a passing attempt wasteful (completion and context problems show as failures).
EFFICIENCY_MODULES = ("agent_loop", "observation", "tool_use")


def _steps(attempts: Iterable[AttemptEvidence], prefixes: tuple[str, ...]) -> list[int]:
    keys = [key for key in Signals.model_fields if key.endswith("_steps") and key.startswith(prefixes)]
    return sorted({step for attempt in attempts for key in keys for step in getattr(attempt.signals, key)})


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


Hits = dict[str, list[tuple[AttemptEvidence, float]]]


class SimAnalyst:
    """Deterministic rules over the signals (the offline analyst; a test double for an LLM analyst).

    A module is *blamed* by an attempt when the attempt shows the module's symptom (:data:`SYMPTOMS`):
    for contrastive evidence, a failing attempt whose symptom is worse than in every passing attempt;
    for single-sided evidence, any failing attempt with the symptom; for efficiency, any passing attempt
    with a wasteful symptom. The lens is the culprit when it is blamed at all; otherwise the module
    blamed by most attempts is named in ``locked_module`` (is_culprit False) for its own lane."""

    name = "sim"

    def __init__(self, config: SimAnalystConfig | None = None):
        self.config = config or SimAnalystConfig()

    async def analyse(self, evidence: TaskEvidence, lens: Module, kind: Kind) -> Finding:
        return self.diagnose(evidence, lens, kind)

    def diagnose(self, evidence: TaskEvidence, lens: Module, kind: Kind | None = None) -> Finding:
        kind = kind or finding_kind(evidence)
        hits = self._wasteful(evidence) if kind == "efficiency" else self._failures(evidence, kind == "contrastive")
        base = strength_fields(evidence) | {"lens": lens, "kind": kind, "analyst": self.name}
        if lens in hits:
            symptom = SYMPTOMS[lens]
            return Finding(**base, is_culprit=True, locked_module=lens, mechanism=MECHANISMS[lens],
                           divergence=_divergence(evidence, kind, lens, hits[lens]),
                           would_change_outcome=kind != "efficiency", fixable_now=True,
                           suggested_change=symptom.change,
                           evidence_steps=_steps((a for a, _ in hits[lens]), symptom.step_prefixes))
        if hits:
            other = max(hits, key=lambda m: (len(hits[m]), -MODULES.index(m)))
            text = f"evidence points at {other}, not {lens}: " + _divergence(evidence, kind, other, hits[other])
            return Finding(**base, is_culprit=False, locked_module=other, mechanism=MECHANISMS[other],
                           divergence=text, would_change_outcome=kind != "efficiency", fixable_now=False,
                           evidence_steps=_steps((a for a, _ in hits[other]), SYMPTOMS[other].step_prefixes))
        return Finding(**base, is_culprit=False, divergence=_nothing(kind))

    def _scores(self, attempt: AttemptEvidence, modules: Iterable[str]) -> dict[str, float]:
        return {m: SYMPTOMS[m].score(attempt.signals, self.config) for m in modules}

    def _failures(self, evidence: TaskEvidence, contrastive: bool) -> Hits:
        floor = dict.fromkeys(MODULES, 0.0)
        if contrastive:
            for attempt in evidence.passing:
                for module, value in self._scores(attempt, MODULES).items():
                    floor[module] = max(floor[module], value)
        hits: Hits = {}
        for attempt in evidence.failing:
            for module, value in self._scores(attempt, MODULES).items():
                if value > floor[module]:
                    hits.setdefault(module, []).append((attempt, value))
        return hits

    def _wasteful(self, evidence: TaskEvidence) -> Hits:
        hits: Hits = {}
        for attempt in evidence.epoch_attempts:
            for module, value in self._scores(attempt, EFFICIENCY_MODULES).items():
                if value > 0:
                    hits.setdefault(module, []).append((attempt, value))
        return hits


def _divergence(evidence: TaskEvidence, kind: Kind, module: str, hits: list[tuple[AttemptEvidence, float]]) -> str:
    shown = "; ".join(f"a{a.index}: {SYMPTOMS[module].describe(v)}" + _recovery(a, module) for a, v in hits)
    if kind == "efficiency":
        return f"all attempts passed, but with wasted steps ({shown})"
    if kind == "single-sided":
        return f"all {len(evidence.failing)} attempts failed and no passing trajectory exists; {shown}"
    passing = ", ".join(f"a{a.index}" + (" (from memory)" if a.from_memory else "") for a in evidence.passing)
    who = f"passing {passing}" if passing else f"the passing trajectory ({evidence.pair_source or 'paired'})"
    return f"failing {shown}; {who} did not" + _pair_excerpt(evidence)


def _recovery(attempt: AttemptEvidence, module: str) -> str:
    interventions = attempt.signals.interventions
    return f" despite {interventions:.0f} intervention(s) (ineffective recovery)" if (
        module == "agent_loop" and interventions) else ""


def _pair_excerpt(evidence: TaskEvidence) -> str:
    step, ok, bad = evidence.divergence_step, evidence.pass_keystrokes or [], evidence.fail_keystrokes or []
    if step is None:
        return ""
    left = _short(ok[step]) if step < len(ok) else "(ended)"
    right = _short(bad[step]) if step < len(bad) else "(ended)"
    return f"; the pair first differs at step {step}: pass `{left}` vs fail `{right}`"


def _nothing(kind: Kind) -> str:
    return {"efficiency": "all attempts passed; no wasteful pattern in the signals",
            "single-sided": "no harness symptom in the failing attempts (task-specific difficulty?)",
            "contrastive": "no harness symptom separates failing from passing attempts (sampling luck?)"}[kind]
