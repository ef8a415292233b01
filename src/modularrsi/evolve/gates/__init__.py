"""The three gates a proposal must pass, cheapest first: static → review → execution.

Each gate is a tiny policy object (:class:`Gate`) with one ``async check(proposal)`` method that returns a
:class:`GateVerdict` and never raises for a bad proposal (a bad proposal is a failing verdict; only
infrastructure problems — a budget stop, a broken task — propagate). Gates never modify the parent or the staging
generation.

- :class:`~modularrsi.evolve.gates.static.StaticGate` — parse, banned constructs, scope (only the locked
  module changed), then import + module contract in a subprocess with a timeout.
- :class:`~modularrsi.evolve.gates.review.ReviewGate` — reward-blind: a deterministic pre-screen for
  task-specific content, then (optionally) one reviewer-model call on the diff and the description.
- :class:`~modularrsi.evolve.gates.execution.ExecutionGate` — paired runs of parent and staging on fresh
  attempts with the same seeds over a stratified sample; a one-sided sign-flip test over the evidence tasks
  (tasks, not attempts, are the unit) and a cap on anchor regressions (bound to its sample by
  :meth:`ExecutionGate.bound`).

:func:`run_chain` runs gates in order and stops at the first that fails; promotion (a lane's epoch) and
conflict resolution (integration) both use it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from modularrsi.evolve.proposal import Proposal

MAX_REASON_CHARS = 400


class GateVerdict(BaseModel):
    """One gate's decision on one proposal. ``reason`` is a single line (newlines are folded, long text is
    cut); ``details`` holds whatever the gate measured (JSON values only, so verdicts can be recorded)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    gate: str = Field(description="Name of the gate: static, review or execution.")
    passed: bool = Field(description="True when the proposal may go on to the next gate.")
    reason: str = Field(description="One line saying why.")
    details: dict[str, Any] = Field(default_factory=dict, description="What the gate measured.")

    @field_validator("reason")
    @classmethod
    def _one_line(cls, value: str) -> str:
        line = " ".join(value.split())
        return line if len(line) <= MAX_REASON_CHARS else line[: MAX_REASON_CHARS - 1] + "…"

    @classmethod
    def ok(cls, gate: str, reason: str, **details: Any) -> GateVerdict:
        return cls(gate=gate, passed=True, reason=reason, details=details)

    @classmethod
    def fail(cls, gate: str, reason: str, **details: Any) -> GateVerdict:
        return cls(gate=gate, passed=False, reason=reason, details=details)


class Gate(Protocol):
    """One policy: ``name`` is the gate's name in verdicts and records."""

    name: str

    async def check(self, proposal: Proposal) -> GateVerdict: ...


async def run_chain(gates: Sequence[Gate], proposal: Proposal,
                    before: Callable[[str], None] | None = None) -> list[GateVerdict]:
    """The verdicts of ``gates`` on ``proposal`` in order, up to and including the first failure;
    ``before(name)`` is called as each gate starts."""
    verdicts: list[GateVerdict] = []
    for gate in gates:
        if before is not None:
            before(gate.name)
        verdicts.append(await gate.check(proposal))
        if not verdicts[-1].passed:
            break
    return verdicts


__all__ = ["Gate", "GateVerdict", "run_chain"]
