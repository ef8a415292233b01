"""Terminus-2's JSON schema with a conservative repair of truncated or slightly malformed replies."""

import json
import re

from harbor.agents.terminus_2.terminus_json_plain_parser import TerminusJSONPlainParser

from modularrsi.harness.protocols import Action, Reply, reply_text
from modularrsi.harness.resources import terminus_template

MODULE = "tool_use"
ROLE = "core"
DESCRIPTION = (
    "The Terminus-2 JSON schema {analysis, plan, commands[{keystrokes, duration}], task_complete}, parsed "
    "with Harbor's parser, executed through tmux like the baseline. When a reply does not parse, it first "
    "tries to recover the intended JSON: raw line breaks and tabs inside strings are escaped, a backslash "
    "JSON does not allow (as in a shell's \\; or \\') is kept as a literal backslash, trailing commas are "
    "removed, and a reply cut off after its "
    "commands array is completed (open string closed, a partial trailing member dropped, open brackets "
    "closed). It never guesses commands: a reply cut inside or before its commands is left to the normal "
    "parse-error feedback. A repaired reply runs with a warning. Helps when replies are cut off at the "
    "end or carry small syntax slips, saving a round trip."
)
PARAMETERS = {"max_duration_sec": 60}

LITERALS = ("true", "false", "null")
CONTROL = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
JSON_ESCAPES = '"\\/bfnrtu'
TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def initial_prompt(instruction, terminal_state, ctx):
    return terminus_template().format(instruction=instruction, terminal_state=terminal_state)


def parse(text, ctx):
    result = TerminusJSONPlainParser().parse_response(text)
    note = ""
    if result.error:
        repaired, note = repair(text)
        if repaired is not None:
            fixed = TerminusJSONPlainParser().parse_response(repaired)
            if not fixed.error:
                result = fixed
            else:
                note = ""
    cap = ctx.params["max_duration_sec"]
    actions = tuple(Action(c.keystrokes, min(c.duration, cap)) for c in result.commands)
    warning = "\n".join(w for w in (f"- AUTO-REPAIRED: {note}" if note else "", result.warning or "") if w)
    return Reply(raw=text, analysis=reply_text(result.analysis), plan=reply_text(result.plan), actions=actions,
                 task_complete=bool(result.is_task_complete), error=result.error or None, warning=warning or None)


def parse_error_feedback(reply, ctx):
    feedback = f"ERROR: {reply.error}"
    if reply.warning:
        feedback += f"\nWARNINGS: {reply.warning}"
    return (f"Previous response had parsing errors:\n{feedback}\n\n"
            "Please fix these issues and provide a proper JSON response.")


async def execute(actions, ctx):
    for action in actions:
        await ctx.terminal.send_keys(action.keystrokes, min_timeout_sec=action.duration)
    return await ctx.terminal.incremental_output()


def repair(text):
    """(repaired JSON text, what was done) or (None, "") when the intended JSON cannot be recovered."""
    start = text.find("{")
    if start < 0:
        return None, ""
    body, notes = _normalise_strings(text[start:])
    stack, in_string, member_start, end = _scan(body)
    if end is not None:
        fixed = _strip_trailing_commas(body[:end])
        if fixed != body[:end]:
            notes.append("removed trailing commas")
        return (fixed, "; ".join(notes)) if notes else (None, "")
    if stack != ["{"]:
        return None, ""
    tail = body[member_start:]
    completed = _complete_member(tail, in_string)
    head = body[:member_start].rstrip().rstrip(",")
    sep = "," if completed and head.rstrip() != "{" else ""
    candidate = head + sep + completed + "}"
    candidate = _strip_trailing_commas(candidate)
    try:
        data = json.loads(candidate)
    except ValueError:
        return None, ""
    if not isinstance(data.get("commands"), list):
        return None, ""
    return candidate, "; ".join([*notes, "completed a reply that was cut off after its commands"])


def _normalise_strings(body):
    """Raw line breaks and tabs inside strings escaped, and backslashes JSON does not allow doubled (kept
    literally); (text, what was done)."""
    out, notes, in_string, i = [], [], False, 0
    while i < len(body):
        ch = body[i]
        if in_string and ch == "\\":
            nxt = body[i + 1:i + 2]
            if nxt and nxt in JSON_ESCAPES:
                out.append(ch + nxt)
                i += 2
                continue
            out.append("\\\\" if nxt else ch)
            _note(notes, "kept invalid escapes as literal backslashes")
        elif in_string and ch in CONTROL:
            out.append(CONTROL[ch])
            _note(notes, "escaped line breaks inside strings")
        else:
            out.append(ch)
            if ch == '"':
                in_string = not in_string
        i += 1
    return "".join(out), notes


def _note(notes, note):
    if note not in notes:
        notes.append(note)


def _scan(body):
    """Walk the JSON text: (open brackets, inside a string?, start of the last top-level member, end)."""
    stack, in_string, escaped, member_start = [], False, False, 1
    for i, ch in enumerate(body):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append(ch)
        elif ch in "}]":
            stack.pop()
            if not stack:
                return stack, False, member_start, i + 1
        elif ch == "," and len(stack) == 1:
            member_start = i + 1
    return stack, in_string, member_start, None


def _complete_member(tail, in_string):
    """A cut-off top-level member made whole, or "" when it should be dropped (a key or value cut short)."""
    try:
        json.loads("{" + tail + "}")
        return tail
    except ValueError:
        pass
    key, colon, value = tail.partition(":")
    if not colon:
        return ""
    value = value.strip()
    if in_string and value.startswith('"'):
        return f"{key}:{value}\""
    if value and any(lit.startswith(value) for lit in LITERALS):
        return f"{key}:{next(lit for lit in LITERALS if lit.startswith(value))}"
    return ""


def _strip_trailing_commas(text):
    out, in_string, escaped = [], False, False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "," and TRAILING_COMMA.match(text, i):
            continue
        out.append(ch)
    return "".join(out)
