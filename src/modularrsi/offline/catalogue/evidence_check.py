"""Completion guard: a claim must come with evidence, requirement by requirement, before it is graded."""

import re

MODULE = "completion"
ROLE = "additive"
DESCRIPTION = (
    "Challenges a task_complete claim unless the agent's last turns already ran verification commands "
    "(inspecting outputs, diffing, grepping, running the program or its checks). The challenge asks the "
    "agent to re-read the task's requirements one by one and verify each with a command before "
    "confirming, and to fix any requirement that is not met. Asks at most max_asks times per episode, "
    "then leaves the decision to the core completion rule. Helps when agents claim completion after "
    "skipping an easy-to-overlook requirement; costs one extra turn per challenge."
)
PARAMETERS = {"max_asks": 2, "lookback_turns": 2, "output_chars": 800}

VERIFY = re.compile(r"(?:^|[;&|(]|\s)(?:cat|diff|cmp|grep|wc|head|tail|jq|test|stat|sha256sum|md5sum|pytest)\b|\[\s")


def check(reply, output, ctx):
    asked = ctx.memo.get("asks", 0)
    if asked >= ctx.params["max_asks"] or _verified_recently(ctx):
        return None
    ctx.memo["asks"] = asked + 1
    tail = output[-ctx.params["output_chars"]:] if output else ""
    return (
        f"Current terminal state:\n{tail}\n\n"
        "Before this is marked complete, verify it. Re-read the task's requirements one by one. For each "
        "requirement, run a command that shows it holds (inspect the produced file or output, run the "
        "program, check exact names, paths, formats and edge cases the task asks for). If a requirement "
        "is not met, fix it first. Only when every requirement is verified with evidence, include "
        "\"task_complete\": true again."
    )


def _verified_recently(ctx):
    recent = ctx.state.turns[-ctx.params["lookback_turns"]:]
    keys = "\n".join(a.keystrokes for turn in recent for a in turn.reply.actions)
    return bool(VERIFY.search(keys))
