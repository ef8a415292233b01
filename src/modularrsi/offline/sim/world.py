"""The world of the ``sim`` model: which failure modes are active, and at what rate.

A world is drawn from a seed (``sim:world-<seed>``, or the ``MODULARRSI_SIM_WORLD`` environment
variable for a plain ``sim``); ``sim`` alone plays :meth:`SimWorld.default`. The evolution never reads
a world: only the model does (through its name) and a benchmark that scores credit assignment against
it (``bench/credit.py``).

Failure modes (rates are per attempt, per turn or per reply as documented, then scaled by the task's
difficulty and a per-task propensity):

======================== ======== ==========================================================================
mode                     fixable  what the model does; what undoes it
======================== ======== ==========================================================================
skip_requirement         yes      drops the task's easy-to-miss step and claims completion; recovers when a
                                  later message restates that requirement or names a file it produces
early_claim              yes      drops the final step and claims completion early; same recovery
command_loop             yes      repeats a listing turn after turn; leaves when a message names the repeated
                                  command (beyond the terminal's echo) or restates the task
long_output              yes      a long observation may make it believe the next step is done (rate per KB
                                  beyond 2 KB); shorter observations confuse it less
forgetting               yes      once the task's text lies more than ``forget_chars`` back in its context, it
                                  may drop a remaining step; seeing the task again (a reminder, a handoff
                                  that restates it) resets the distance
malformed_recoverable    yes      a reply cut off after its commands; a parser that repairs it runs them, a
                                  feedback that quotes the reply makes it re-send; otherwise it may move on
                                  believing the step ran
malformed_unrecoverable  no       a reply with no JSON at all; it answers properly on the next turn
incapacity               no       on some hard tasks one step is always done wrong
======================== ======== ==========================================================================
"""

from __future__ import annotations

import os
import random
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from modularrsi.util.errors import UserError

Mode = Literal["skip_requirement", "early_claim", "command_loop", "long_output", "forgetting",
               "malformed_recoverable", "malformed_unrecoverable", "incapacity"]
FIXABLE: tuple[Mode, ...] = ("skip_requirement", "early_claim", "command_loop", "long_output", "forgetting",
                             "malformed_recoverable")
UNFIXABLE: tuple[Mode, ...] = ("malformed_unrecoverable", "incapacity")
MODES: tuple[Mode, ...] = FIXABLE + UNFIXABLE
WORLD_ENV = "MODULARRSI_SIM_WORLD"

#: Rates of the default world (``sim``): gen_0 passes 30–50 % of attempts on the shipped pool.
DEFAULT_RATES: dict[Mode, float] = {
    "skip_requirement": 0.5, "early_claim": 0.2, "command_loop": 0.05, "long_output": 0.045,
    "forgetting": 0.12, "malformed_recoverable": 0.04, "malformed_unrecoverable": 0.03, "incapacity": 0.35}
#: The range a drawn world takes each active mode's rate from.
RANGES: dict[Mode, tuple[float, float]] = {
    "skip_requirement": (0.35, 0.7), "early_claim": (0.15, 0.35), "command_loop": (0.05, 0.12),
    "long_output": (0.04, 0.09), "forgetting": (0.12, 0.3), "malformed_recoverable": (0.06, 0.12),
    "malformed_unrecoverable": (0.01, 0.05), "incapacity": (0.2, 0.5)}


class SimWorld(BaseModel):
    """One world: the rate of every mode (0: inactive) and the knobs the modes share."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int | None = Field(default=None, description="The seed it was drawn from; None for a named world.")
    rates: dict[Mode, float] = Field(description="Rate per mode; 0 = the mode is inactive.")
    forget_chars: int = Field(default=24_000, gt=0, description="Context chars past the task's text "
                              "beyond which forgetting may happen.")
    explore: float = Field(default=0.6, ge=0, le=1, description="Per attempt: start with a long listing.")
    loop_persist: float = Field(default=0.88, ge=0, le=1, description="Per turn: stay in a loop unaided.")
    lost_after_loop: float = Field(default=0.5, ge=0, le=1, description="Leaving a loop unaided: drop a step.")
    recover_reminded: float = Field(default=0.85, ge=0, le=1, description="Per message that reminds it of a "
                                    "dropped step: take the step up again.")
    recover_plain: float = Field(default=0.1, ge=0, le=1, description="Per challenge of a claim that says "
                                 "nothing about a dropped step.")
    loop_break: float = Field(default=0.8, ge=0, le=1, description="Per message naming its loop: leave it.")
    resend_quoted: float = Field(default=0.9, ge=0, le=1, description="After feedback quoting its malformed "
                                 "reply: re-send it.")
    resend_unaided: float = Field(default=0.4, ge=0, le=1, description="After feedback that does not: re-send.")
    propensity_base: float = 0.15
    propensity_span: float = 2.6
    context_tokens: int = 32_768
    step_duration: float = 0.3

    def rate(self, mode: Mode) -> float:
        return self.rates.get(mode, 0.0)

    @property
    def active(self) -> list[Mode]:
        return [m for m in MODES if self.rate(m) > 0]

    @property
    def active_fixable(self) -> list[Mode]:
        return [m for m in FIXABLE if self.rate(m) > 0]

    @classmethod
    def default(cls) -> SimWorld:
        return cls(rates=dict(DEFAULT_RATES))

    @classmethod
    def perfect(cls) -> SimWorld:
        return cls(rates=dict.fromkeys(MODES, 0.0), explore=0.0, propensity_base=0.0, propensity_span=0.0)

    @classmethod
    def drawn(cls, seed: int) -> SimWorld:
        """A world of its own: each fixable mode active with probability 0.4 (at least two are), every
        unfixable one active; rates and the forgetting distance drawn from :data:`RANGES`."""
        rng = random.Random(f"sim-world:{seed}")
        active = [m for m in FIXABLE if rng.random() < 0.4]
        while len(active) < 2:
            extra = rng.choice([m for m in FIXABLE if m not in active])
            active.append(extra)
        rates: dict[Mode, float] = {m: (rng.uniform(*RANGES[m]) if m in active or m in UNFIXABLE else 0.0)
                                    for m in MODES}
        return cls(seed=seed, rates=rates, forget_chars=rng.randrange(10_000, 22_000))


def world_for(profile: str) -> SimWorld:
    """The world a model name's profile names: ``default``, ``perfect`` or ``world-<seed>``; a plain
    ``default`` defers to ``MODULARRSI_SIM_WORLD`` when it is set."""
    if profile == "default" and os.environ.get(WORLD_ENV, "").strip():
        profile = f"world-{os.environ[WORLD_ENV].strip()}"
    if profile == "default":
        return SimWorld.default()
    if profile == "perfect":
        return SimWorld.perfect()
    seed = profile.removeprefix("world-")
    if profile.startswith("world-") and seed.lstrip("-").isdigit():
        return SimWorld.drawn(int(seed))
    raise UserError(f"sim profile '{profile}' is unknown; valid: default, perfect, world-<integer seed> "
                    f"(e.g. sim:world-3), or set {WORLD_ENV}=<seed>")
