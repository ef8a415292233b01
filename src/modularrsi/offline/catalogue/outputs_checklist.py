"""Completion guard: before a claim is graded, list the paths the task names and ask to show each one."""

import re

MODULE = "completion"
ROLE = "additive"
DESCRIPTION = (
    "Challenges a task_complete claim with the list of paths the instruction names (up to max_paths), "
    "asking the agent to show with a command that each output it was asked for exists and has the "
    "expected content, and to produce whatever is missing before claiming again. Asks at most max_asks "
    "times per episode and stays silent when the instruction names no path. Helps when agents stop "
    "before writing every output the task asks for; costs one extra turn per challenge."
)
PARAMETERS = {"max_asks": 1, "max_paths": 10}

PATH = re.compile(r"(?<![\w.])/?[\w.-]+(?:/[\w.-]+)+"
                  r"|\b[\w-]+\.(?:csv|json|txt|md|log|py|sh|tar|gz|conf|ini|toml|yaml)\b")


def check(reply, output, ctx):
    asked = ctx.memo.get("asks", 0)
    paths = []
    for path in PATH.findall(ctx.state.instruction):
        path = path.rstrip(".")
        if path not in paths:
            paths.append(path)
    if asked >= ctx.params["max_asks"] or not paths:
        return None
    ctx.memo["asks"] = asked + 1
    listed = "\n".join(f"- {p}" for p in paths[: ctx.params["max_paths"]])
    return (
        f"Before this is graded, show that every output the task asks for is in place:\n{listed}\n\n"
        "Run a command that shows each one (and its content where the task specifies it). Produce anything "
        "that is missing or wrong, then include \"task_complete\": true again."
    )
