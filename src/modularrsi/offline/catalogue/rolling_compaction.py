"""Context policy: compact early and repeatedly, keeping the latest exchanges verbatim."""

from modularrsi.harness.protocols import Message

MODULE = "context"
ROLE = "core"
DESCRIPTION = (
    "Summarises the history as soon as it passes trigger_fraction of the context window (and again each "
    "time it has grown by regrow_fraction since the last compaction), instead of waiting until the window "
    "is nearly full. The handoff is the baseline's three calls (summary of the work, the questions a fresh "
    "agent would ask, answers from the full history); the last keep_last_messages messages stay verbatim "
    "after it, so the latest command and its output are not lost. On overflow it unwinds and hands off "
    "like the baseline. Helps long episodes where agents lose track of the plan in a long history."
)
PARAMETERS = {"trigger_fraction": 0.35, "regrow_fraction": 0.15, "keep_last_messages": 4,
              "unwind_free_tokens": 4000, "screen_chars": 1000}


async def before_query(history, ctx):
    if not history:
        return None
    limit = ctx.model.context_limit()
    threshold = ctx.params["trigger_fraction"] * limit
    if "floor" in ctx.memo:  # compacted before: wait until the history has grown again
        threshold = max(threshold, ctx.memo["floor"] + ctx.params["regrow_fraction"] * limit)
    if ctx.model.count_tokens(history) < threshold:
        return None
    try:
        new = await _handoff(history, ctx, ctx.params["keep_last_messages"])
    except Exception:  # noqa: BLE001 - a failed proactive summary leaves the history as it was
        return None
    ctx.memo["floor"] = ctx.model.count_tokens(new)
    return new


async def on_overflow(history, ctx):
    kept = list(history)
    target = ctx.params["unwind_free_tokens"]
    while len(kept) > 1 and ctx.model.context_limit() - ctx.model.count_tokens(kept) < target:
        kept = kept[:-2] if len(kept) > 2 else kept[:1]
    try:
        return await _handoff(kept, ctx, 0)
    except Exception:  # noqa: BLE001 - fall back to a handoff that needs no model call
        screen = (await ctx.terminal.screen())[-ctx.params["screen_chars"]:]
        return [Message("user", f"{ctx.state.instruction}\n\nCurrent state: {screen}", "summary")]


def _recent(history, keep):
    """The last ``keep`` messages, starting at a user message (empty when there is none)."""
    recent = list(history[-keep:]) if keep > 0 else []
    while recent and recent[0].role != "user":
        recent = recent[1:]
    return recent if len(recent) < len(history) else []


async def _handoff(history, ctx, keep):
    instruction = ctx.state.instruction
    summary = await ctx.model.ask(history + [Message("user", (
        "You are about to hand this task over to another agent with no access to this conversation. "
        "Summarise everything done so far: what was run, what was found, which files were created or "
        "changed, what succeeded, what failed, and what remains to be done for the task below.\n\n"
        f"Task:\n{instruction}"), "summary_request")], "summary_request")
    screen = (await ctx.terminal.screen())[-ctx.params["screen_chars"]:]
    question_prompt = (
        f"You are taking over this task:\n{instruction}\n\nThe previous agent's summary:\n{summary}\n\n"
        f"Current terminal screen:\n{screen}\n\n"
        "List the questions you need answered about the previous work before you can continue.")
    questions = await ctx.model.ask([Message("user", question_prompt, "summary_request")], "summary_request")
    answers = await ctx.model.ask(history + [
        Message("user", "Answer these questions from the next agent precisely, from the work above:\n"
                f"{questions}", "summary_request")], "summary_request")
    handoff = (f"Here are the answers to your questions:\n{answers}\n\n"
               "Continue working on the task from where the previous agent stopped.")
    ctx.state.compactions += 1
    recent = _recent(history, keep)
    head = [Message("user", question_prompt, "summary"), Message("assistant", questions, "reply")]
    if not recent:
        return head + [Message("user", handoff, "summary")]
    merged = (f"{handoff}\n\nThe latest exchange with the previous agent, verbatim:\n\n{recent[0].content}")
    return head + [Message("user", merged, "summary")] + recent[1:]
