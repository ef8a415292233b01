"""Terminus-2's context policy: summarise when free context runs low, and on overflow."""

from modularrsi.harness.protocols import Message

MODULE = "context"
ROLE = "core"
DESCRIPTION = (
    "Keeps the whole history until the free context falls under proactive_free_tokens, then hands off "
    "through a three-call summary (a summary of the work, questions a fresh agent would ask, answers "
    "from the full history) and continues from that handoff. On a context overflow it first drops the "
    "newest exchanges until unwind_free_tokens are free, then summarises the same way; if the model "
    "cannot summarise it continues from the instruction and the current screen. Baseline behaviour."
)
PARAMETERS = {"proactive_free_tokens": 8000, "unwind_free_tokens": 4000, "screen_chars": 1000}


async def before_query(history, ctx):
    threshold = ctx.params["proactive_free_tokens"]
    if threshold <= 0 or not history:
        return None
    free = ctx.model.context_limit() - ctx.model.count_tokens(history)
    if free >= threshold:
        return None
    try:
        return await _handoff(history, ctx)
    except Exception:  # noqa: BLE001 - a failed proactive summary leaves the history as it was
        return None


async def on_overflow(history, ctx):
    kept = list(history)
    target = ctx.params["unwind_free_tokens"]
    while len(kept) > 1 and ctx.model.context_limit() - ctx.model.count_tokens(kept) < target:
        kept = kept[:-2] if len(kept) > 2 else kept[:1]
    try:
        return await _handoff(kept, ctx)
    except Exception:  # noqa: BLE001 - fall back to a handoff that needs no model call
        screen = (await ctx.terminal.screen())[-ctx.params["screen_chars"]:]
        return [Message("user", f"{ctx.state.instruction}\n\nCurrent state: {screen}", "summary")]


async def _handoff(history, ctx):
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
    return [Message("user", question_prompt, "summary"), Message("assistant", questions, "reply"),
            Message("user", handoff, "summary")]
