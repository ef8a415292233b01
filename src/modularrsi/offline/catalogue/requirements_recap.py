"""Completion guard: before a claim is graded, restate the task's requirements and ask for each to be confirmed."""

import re

MODULE = "completion"
ROLE = "additive"
DESCRIPTION = (
    "Challenges a task_complete claim by restating the task's own requirements: every bullet and "
    "sentence of the instruction, numbered, up to max_items of them. The agent is asked to go through the "
    "list and confirm that each one holds in what it produced, and to do whatever is still missing before "
    "claiming again. Asks at most max_asks times per episode, then leaves the decision to the core "
    "completion rule. Helps when agents claim completion after overlooking one of the stated "
    "requirements; costs one extra turn per challenge."
)
PARAMETERS = {"max_asks": 1, "max_items": 12, "item_chars": 300}

SPLIT = re.compile(r"\n\s*[-*]\s+|\n\s*\n|(?<=[.:])\s+(?=[A-Z])")


def check(reply, output, ctx):
    asked = ctx.memo.get("asks", 0)
    if asked >= ctx.params["max_asks"]:
        return None
    ctx.memo["asks"] = asked + 1
    items = [" ".join(part.split()) for part in SPLIT.split(ctx.state.instruction) if len(part.split()) >= 3]
    items = [item[: ctx.params["item_chars"]] for item in items[: ctx.params["max_items"]]]
    listed = "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))
    return (
        "Before this is graded, go through the task's requirements once more:\n"
        f"{listed}\n\n"
        "For each one, confirm that what you produced meets it. If any of them is not done yet, do it now; "
        "when all of them hold, include \"task_complete\": true again."
    )
