"""Context policy: a reply the parser refused leaves the history, and the message it answered is asked again."""

from modularrsi.harness.protocols import Message

MODULE = "context"
ROLE = "core"
DESCRIPTION = (
    "When the parser refused the latest reply, takes that reply out of the history and sends the message it "
    "answered again, with a note that names the parser's error and how many replies to it were refused; the "
    "parse-error feedback is not sent. The model is asked afresh instead of seeing its own refused text. "
    "Otherwise keeps the whole history, and summarises in one call when free context falls under "
    "proactive_free_tokens and on overflow. Helps models that answer parse-error feedback by sending the same "
    "refused reply again, turn after turn."
)
PARAMETERS = {"error_chars": 200, "proactive_free_tokens": 8000, "unwind_free_tokens": 4000, "screen_chars": 1000}

NOTE = "\n\n(Not run: your last {count} to the message above could not be read: {error}. Answer it again " \
       "with one valid JSON object.)"


def refused_run(ctx):
    """How many replies in a row, up to the latest, the parser refused."""
    count = 0
    for turn in reversed(ctx.state.turns):
        if not turn.reply.error:
            break
        count += 1
    return count


async def before_query(history, ctx):
    turns = ctx.state.turns
    latest = turns[-1].reply if turns else None
    if (len(history) >= 2 and history[-1].role == "assistant" and history[-2].role == "user" and latest is not None
            and latest.error and history[-1].content == latest.raw):
        count = refused_run(ctx)
        asked = history[-2].content.split(NOTE[:16])[0]  # the message as first sent, without an earlier note
        error = " ".join(latest.error.split())[: ctx.params["error_chars"]]
        said = NOTE.format(count="reply" if count == 1 else f"{count} replies", error=error)
        return list(history[:-2]) + [Message("user", asked + said, "parse_error_feedback")]
    if not history or ctx.model.context_limit() - ctx.model.count_tokens(history) >= \
            ctx.params["proactive_free_tokens"]:
        return None
    return await on_overflow(history + [Message("user", "", "observation")], ctx)


async def on_overflow(history, ctx):
    kept = list(history[:-1])
    target = ctx.params["unwind_free_tokens"]
    while len(kept) > 1 and ctx.model.context_limit() - ctx.model.count_tokens(kept) < target:
        kept = kept[:-2] if len(kept) > 2 else kept[:1]
    try:
        summary = await ctx.model.ask(kept + [Message("user", (
            "Summarise the work so far for another agent who will continue it: what was run, what was "
            f"found, what remains for this task:\n{ctx.state.instruction}"), "summary_request")], "summary_request")
    except Exception:  # noqa: BLE001 - continue from the instruction and the screen when no summary comes
        summary = (await ctx.terminal.screen())[-ctx.params["screen_chars"]:]
    ctx.state.compactions += 1
    return [Message("user", f"{ctx.state.instruction}\n\nWork so far: {summary}", "summary")]
