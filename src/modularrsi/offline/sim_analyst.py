"""The offline analyst: deterministic rules over an attempt's signals (a test double for an LLM analyst).

Part of the offline world: the evolution reaches it by name (:mod:`modularrsi.util.wing`).
"""

from __future__ import annotations

from collections.abc import Iterable

from modularrsi.evolve.analysis import finding_kind
from modularrsi.evolve.findings import AttemptEvidence, Finding, Kind, Module, TaskEvidence, strength_fields
from modularrsi.evolve.signals import Signals
from modularrsi.evolve.symptoms import Hit, SimAnalystConfig, Symptom, blamed, ranked


def _steps(hits: Iterable[Hit]) -> list[int]:
    """The steps each blaming attempt's own symptom points at."""
    steps = set()
    for attempt, _, symptom in hits:
        keys = [k for k in Signals.model_fields if k.endswith("_steps") and k.startswith(symptom.step_prefixes)]
        steps |= {step for key in keys for step in getattr(attempt.signals, key)}
    return sorted(steps)


def _main(hits: list[Hit]) -> Symptom:
    """The symptom most of the blaming attempts show (of equals, the one shown first)."""
    shown = [h.symptom for h in hits]
    return max(dict.fromkeys(shown), key=shown.count)


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class SimAnalyst:
    """Deterministic rules over the signals (the offline analyst; a test double for an LLM analyst).

    A module is *blamed* by attempts as :func:`~modularrsi.evolve.symptoms.blamed` says. The lens is the
    culprit when it is blamed at all; otherwise the module blamed by most attempts is named in
    ``locked_module`` (is_culprit False) for its own lane."""

    name = "sim"

    def __init__(self, config: SimAnalystConfig | None = None):
        self.config = config or SimAnalystConfig()

    async def analyse(self, evidence: TaskEvidence, lens: Module, kind: Kind) -> Finding:
        return self.diagnose(evidence, lens, kind)

    def diagnose(self, evidence: TaskEvidence, lens: Module, kind: Kind | None = None) -> Finding:
        kind = kind or finding_kind(evidence)
        hits = blamed(evidence, kind, self.config)
        base = strength_fields(evidence) | {"lens": lens, "kind": kind, "analyst": self.name}
        if lens in hits:
            return Finding(**base, is_culprit=True, locked_module=lens, mechanism=_main(hits[lens]).mechanism,
                           divergence=_divergence(evidence, kind, lens, hits[lens]),
                           would_change_outcome=kind != "efficiency", fixable_now=True,
                           suggested_change=_main(hits[lens]).change, evidence_steps=_steps(hits[lens]))
        if hits:
            other = ranked(hits)[0]
            text = f"evidence points at {other}, not {lens}: " + _divergence(evidence, kind, other, hits[other])
            return Finding(**base, is_culprit=False, locked_module=other, mechanism=_main(hits[other]).mechanism,
                           divergence=text, would_change_outcome=kind != "efficiency", fixable_now=False,
                           evidence_steps=_steps(hits[other]))
        return Finding(**base, is_culprit=False, divergence=_nothing(kind))


def _divergence(evidence: TaskEvidence, kind: Kind, module: str, hits: list[Hit]) -> str:
    shown = "; ".join(f"a{a.index}: {symptom.describe(v)}" + _recovery(a, module) for a, v, symptom in hits)
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
