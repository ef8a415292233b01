"""Terminus-2's context policy: summarise when free context runs low, and on overflow."""

from modularrsi.harness.protocols import Message

MODULE = "context"
ROLE = "core"
DESCRIPTION = (
    "Keeps the whole history until the free context falls under proactive_free_tokens, then hands off "
    "through three calls (a summary of the work, questions a fresh agent would ask, answers from the "
    "full history) and continues from the first message (the task and reply format), the questions and "
    "a handoff carrying the answers. On a context overflow it first drops the newest exchanges until "
    "unwind_free_tokens are free, then summarises the same way; if that fails it asks for a short "
    "summary, and if that fails too it continues from the instruction and the current screen. A window "
    "so small that even the empty history leaves under proactive_free_tokens free sends the bare "
    "instruction as the first prompt. Terminus-2's behaviour and wording."
)
PARAMETERS = {"proactive_free_tokens": 8000, "unwind_free_tokens": 4000, "screen_chars": 1000}

SUMMARY_PROMPT = """You are about to hand off your work to another AI agent.
            Please provide a comprehensive summary of what you have
            accomplished so far on this task:

Original Task: {instruction}

Based on the conversation history, please provide a detailed summary covering:
1. **Major Actions Completed** - List each significant command you executed
            and what you learned from it.
2. **Important Information Learned** - A summary of crucial findings, file
            locations, configurations, error messages, or system state discovered.
3. **Challenging Problems Addressed** - Any significant issues you
            encountered and how you resolved them.
4. **Current Status** - Exactly where you are in the task completion process.


Be comprehensive and detailed. The next agent needs to understand everything
            that has happened so far in order to continue."""

QUESTION_PROMPT = """You are picking up work from a previous AI agent on this task:

**Original Task:** {instruction}

**Summary from Previous Agent:**
{summary}

**Current Terminal Screen:**
{screen}

Please begin by asking several questions (at least five, more if necessary)
about the current state of the solution that are not answered in the summary
from the prior agent. After you ask these questions you will be on your own,
so ask everything you need to know."""

ANSWER_PROMPT = "The next agent has a few questions for you, please answer each of them one by one in detail:\n\n"
HANDOFF = ("Here are the answers the other agent provided.\n\n{answers}\n\n"
           "Continue working on this task from where the previous agent left off. You can no longer ask "
           "questions. Please follow the spec to interact with the terminal.")


async def before_query(history, ctx):
    threshold = ctx.params["proactive_free_tokens"]
    if threshold <= 0 or ctx.model.context_limit() - ctx.model.count_tokens(history) >= threshold:
        return None
    if not history:  # nothing to summarise: Terminus-2 goes on from the bare instruction
        return [Message("user", ctx.state.instruction, "instruction")]
    try:
        return await _handoff(history, ctx)
    except Exception:  # noqa: BLE001 - a failed proactive summary leaves the history as it was
        return None


async def on_overflow(history, ctx):
    kept = list(history[:-1])  # the prompt that did not fit is replaced by the handoff
    target = ctx.params["unwind_free_tokens"]
    while len(kept) > 1 and ctx.model.context_limit() - ctx.model.count_tokens(kept) < target:
        kept = kept[:-2]
    if not kept:
        return [Message("user", ctx.state.instruction, "summary")]
    try:
        return await _handoff(kept, ctx)
    except Exception:  # noqa: BLE001 - fall back to a short summary, then to one that needs no model call
        pass
    instruction = ctx.state.instruction
    screen = (await ctx.terminal.screen())[-ctx.params["screen_chars"]:]
    try:
        short = await ctx.model.ask([Message("user", f"Briefly continue this task: {instruction}\n\n"
                                             f"Current state: {screen}\n\nNext steps (2-3 sentences):",
                                             "summary_request")], "summary_request")
        text = f"{instruction}\n\nSummary: {short}"
    except Exception:  # noqa: BLE001 - the last fallback needs no model call
        text = f"{instruction}\n\nCurrent state: {screen}"
    return kept + [Message("user", text, "summary")]


async def _handoff(history, ctx):
    instruction = ctx.state.instruction
    summary_prompt = SUMMARY_PROMPT.format(instruction=instruction)
    summary = await ctx.model.ask(history + [Message("user", summary_prompt, "summary_request")],
                                  "summarization_summary")
    screen = await ctx.terminal.screen()
    question_prompt = QUESTION_PROMPT.format(instruction=instruction, summary=summary, screen=screen)
    questions = await ctx.model.ask([Message("user", question_prompt, "summary_request")],
                                    "summarization_questions")
    answers = await ctx.model.ask(history + [Message("user", summary_prompt, "summary_request"),
                                             Message("assistant", summary, "reply"),
                                             Message("user", ANSWER_PROMPT + questions, "summary_request")],
                                  "summarization_answers")
    ctx.state.compactions += 1
    return [history[0], Message("user", question_prompt, "summary"), Message("assistant", questions, "reply"),
            Message("user", HANDOFF.format(answers=answers), "summary")]
