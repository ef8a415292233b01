"""Completion rule: trust the agent's first claim and end the episode at once."""

from modularrsi.harness.protocols import Verdict

MODULE = "completion"
ROLE = "core"
DESCRIPTION = (
    "Ends the episode on the first task_complete claim without asking for confirmation, on the view that "
    "the agent already decided and a confirmation round costs a turn. Saves one turn per episode."
)
PARAMETERS = {}


def on_claim(reply, output, ctx):
    return Verdict(done=True)
