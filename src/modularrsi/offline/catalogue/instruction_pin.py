"""Context policy: the baseline's summaries, plus the task pinned again once it lies far back."""

from modularrsi.harness.protocols import Message

MODULE = "context"
ROLE = "core"
DESCRIPTION = (
    "Keeps the whole history like the baseline, but once more than pin_after_chars of conversation lie "
    "between the last statement of the task and the present, adds the task's instruction again as a short "
    "exchange at the end of the history (no model call). Summarises when free context runs low and on "
    "overflow the way the baseline does, with the instruction in the handoff. Helps long episodes where "
    "the agent loses the task's details because they are far back in its context."
)
PARAMETERS = {"pin_after_chars": 9000, "proactive_free_tokens": 8000, "unwind_free_tokens": 4000,
              "screen_chars": 1000}


async def before_query(history, ctx):
    if not history:
        return None
    instruction = ctx.state.instruction
    since = 0
    for message in reversed(history):
        if instruction[:200] in message.content:
            break
        since += len(message.content)
    if since > ctx.params["pin_after_chars"]:
        return list(history) + [Message("user", f"The task, once more:\n{instruction}", "summary"),
                                Message("assistant", "Understood; continuing with the task.", "reply")]
    if ctx.model.context_limit() - ctx.model.count_tokens(history) >= ctx.params["proactive_free_tokens"]:
        return None
    return await on_overflow(history, ctx)


async def on_overflow(history, ctx):
    kept = list(history)
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
