"""Terminus-2's JSON schema, parsed leniently: a reply that does not parse is treated as 'no action'."""

from harbor.agents.terminus_2.terminus_json_plain_parser import TerminusJSONPlainParser

from modularrsi.harness.protocols import Action, Reply, reply_text
from modularrsi.harness.resources import terminus_template

MODULE = "tool_use"
ROLE = "core"
DESCRIPTION = (
    "The Terminus-2 JSON schema executed through tmux like the baseline, but a reply that does not parse "
    "is not reported back: it is treated as a turn with no commands, so the episode continues with the "
    "next observation. Avoids spending context on parse-error feedback."
)
PARAMETERS = {"max_duration_sec": 60}


def initial_prompt(instruction, terminal_state, ctx):
    return terminus_template().format(instruction=instruction, terminal_state=terminal_state)


def parse(text, ctx):
    result = TerminusJSONPlainParser().parse_response(text)
    if result.error:
        return Reply(raw=text)
    cap = ctx.params["max_duration_sec"]
    actions = tuple(Action(c.keystrokes, min(c.duration, cap)) for c in result.commands)
    return Reply(raw=text, analysis=reply_text(result.analysis), plan=reply_text(result.plan), actions=actions,
                 task_complete=bool(result.is_task_complete), warning=result.warning or None)


def parse_error_feedback(reply, ctx):
    return "Please answer in the JSON format."


async def execute(actions, ctx):
    for action in actions:
        await ctx.terminal.send_keys(action.keystrokes, min_timeout_sec=action.duration)
    return await ctx.terminal.incremental_output()
