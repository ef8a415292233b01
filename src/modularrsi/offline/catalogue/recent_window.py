"""Context policy: a sliding window over the latest exchanges, with no summary."""

MODULE = "context"
ROLE = "core"
DESCRIPTION = (
    "Keeps only the last keep_messages messages of the history once it passes trigger_fraction of the "
    "context window, and on overflow keeps only the last message. No summary is written, so no model "
    "call is spent on compaction."
)
PARAMETERS = {"trigger_fraction": 0.2, "keep_messages": 2}


async def before_query(history, ctx):
    limit = ctx.params["trigger_fraction"] * ctx.model.context_limit()
    if len(history) <= ctx.params["keep_messages"] or ctx.model.count_tokens(history) < limit:
        return None
    ctx.state.compactions += 1
    return list(history[-ctx.params["keep_messages"]:])


async def on_overflow(history, ctx):
    ctx.state.compactions += 1
    return list(history[-1:])
