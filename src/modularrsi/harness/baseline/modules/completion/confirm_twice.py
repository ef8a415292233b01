"""Terminus-2's completion rule: the first claim is answered with "are you sure?", the second ends."""

from modularrsi.harness.protocols import Verdict

MODULE = "completion"
ROLE = "core"
DESCRIPTION = (
    "Treats a task_complete claim as final only when it follows a claim on the previous turn. The first "
    "claim gets the current terminal state and a request to confirm, as Terminus-2 does. It asks for no "
    "evidence, so an agent that skipped a requirement usually confirms anyway."
)
PARAMETERS = {}


def on_claim(reply, output, ctx):
    if ctx.state.pending_completion:
        return Verdict(done=True)
    return Verdict(done=False, message=(
        f"Current terminal state:\n{output}\n\n"
        "Are you sure you want to mark the task as complete? This will trigger your solution to be graded "
        "and you won't be able to make any further corrections. If so, include \"task_complete\": true "
        "in your JSON response again."))
