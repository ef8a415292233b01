"""Context policy: the baseline's handoff summaries, started only when the context is nearly full."""

from modularrsi.harness.protocols import Message

MODULE = "context"
ROLE = "core"
DESCRIPTION = (
    "Keeps the whole history until fewer than proactive_free_tokens remain (a lower threshold than the "
    "baseline's, so more history is kept verbatim before a summary), then summarises in one call with the "
    "instruction and continues from that handoff; on overflow it drops the newest exchanges first. Helps "
    "when summaries lose details the agent still needs, because the history is kept whole for longer."
)
PARAMETERS = {"proactive_free_tokens": 3000, "unwind_free_tokens": 2000, "screen_chars": 1000}


async def before_query(history, ctx):
    free = ctx.model.context_limit() - ctx.model.count_tokens(history) if history else 0
    if not history or free >= ctx.params["proactive_free_tokens"]:
        return None
    try:
        return await _handoff(history, ctx)
    except Exception:  # noqa: BLE001 - a failed proactive summary leaves the history as it was
        return None


async def on_overflow(history, ctx):
    kept = list(history)
    while len(kept) > 1 and ctx.model.context_limit() - ctx.model.count_tokens(kept) < ctx.params["unwind_free_tokens"]:
        kept = kept[:-2] if len(kept) > 2 else kept[:1]
    try:
        return await _handoff(kept, ctx)
    except Exception:  # noqa: BLE001 - fall back to a handoff that needs no model call
        screen = (await ctx.terminal.screen())[-ctx.params["screen_chars"]:]
        return [Message("user", f"{ctx.state.instruction}\n\nCurrent state: {screen}", "summary")]


async def _handoff(history, ctx):
    summary = await ctx.model.ask(history + [Message("user", (
        "Summarise everything done so far and what remains to be done for this task:\n"
        f"{ctx.state.instruction}"), "summary_request")], "summary_request")
    ctx.state.compactions += 1
    return [Message("user", f"Task:\n{ctx.state.instruction}\n\nSummary of the work so far:\n{summary}\n\n"
                    "Continue from here.", "summary")]
