"""Terminus-2's JSON reply schema, parsed with Harbor's own parser, executed through tmux."""

from harbor.agents.terminus_2.terminus_json_plain_parser import TerminusJSONPlainParser

from modularrsi.harness.protocols import Action, Reply, limit_bytes, reply_text
from modularrsi.harness.resources import terminus_template

MODULE = "tool_use"
ROLE = "core"
DESCRIPTION = (
    "Prompts for the Terminus-2 JSON schema {analysis, plan, commands[{keystrokes, duration}], "
    "task_complete}, parses replies with Harbor's TerminusJSONPlainParser, caps each wait at "
    "max_duration_sec, and sends every command's keystrokes to the tmux terminal, waiting the full "
    "duration after each. The terminal output it reads back is cut to read_max_bytes (head + tail), as "
    "Terminus-2 reads it; the observation filters then shape that text. Baseline behaviour."
)
PARAMETERS = {"max_duration_sec": 60, "read_max_bytes": 10000}


def initial_prompt(instruction, terminal_state, ctx):
    return terminus_template().format(instruction=instruction, terminal_state=terminal_state)


def parse(text, ctx):
    result = TerminusJSONPlainParser().parse_response(text)
    cap = ctx.params["max_duration_sec"]
    actions = tuple(Action(c.keystrokes, min(c.duration, cap)) for c in result.commands)
    return Reply(raw=text, analysis=reply_text(result.analysis), plan=reply_text(result.plan), actions=actions,
                 task_complete=bool(result.is_task_complete), error=result.error or None,
                 warning=result.warning or None)


def parse_error_feedback(reply, ctx):
    feedback = f"ERROR: {reply.error}"
    if reply.warning:
        feedback += f"\nWARNINGS: {reply.warning}"
    return (f"Previous response had parsing errors:\n{feedback}\n\n"
            "Please fix these issues and provide a proper JSON response.")


async def execute(actions, ctx):
    for action in actions:
        await ctx.terminal.send_keys(action.keystrokes, min_timeout_sec=action.duration)
    return limit_bytes(await ctx.terminal.incremental_output(), ctx.params["read_max_bytes"])
