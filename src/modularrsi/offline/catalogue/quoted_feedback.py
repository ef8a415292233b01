"""Terminus-2's JSON schema; parse-error feedback shows the agent the start of the reply it sent."""

from harbor.agents.terminus_2.terminus_json_plain_parser import TerminusJSONPlainParser

from modularrsi.harness.protocols import Action, Reply, reply_text
from modularrsi.harness.resources import terminus_template

MODULE = "tool_use"
ROLE = "core"
DESCRIPTION = (
    "The baseline's Terminus-2 JSON schema, parser and tmux execution, with one change: when a reply does "
    "not parse, the feedback quotes the first quote_chars characters of the reply that was received and "
    "says where it stopped making sense, then asks for the whole reply again as one JSON object. Helps "
    "when an agent does not realise its reply was cut off or malformed and moves on as if its commands "
    "had run."
)
PARAMETERS = {"max_duration_sec": 60, "quote_chars": 300}


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
    quoted = reply.raw[: ctx.params["quote_chars"]]
    more = " (cut here)" if len(reply.raw) > len(quoted) else ""
    return (
        f"Your previous reply could not be used, so none of its commands ran. It read:\n{quoted}{more}\n\n"
        f"Problem: {reply.error}\n\n"
        "Send the whole reply again as one complete JSON object with analysis, plan, commands and "
        "task_complete."
    )


async def execute(actions, ctx):
    for action in actions:
        await ctx.terminal.send_keys(action.keystrokes, min_timeout_sec=action.duration)
    return await ctx.terminal.incremental_output()
