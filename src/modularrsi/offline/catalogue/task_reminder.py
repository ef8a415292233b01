"""Loop intervention: every few turns, put the task's full instruction back in front of the agent."""

MODULE = "agent_loop"
ROLE = "additive"
DESCRIPTION = (
    "From turn start_turn on, and then every every_turns turns, appends the task's instruction to the "
    "next prompt, verbatim (cut at max_chars), with a request to compare it against what has been done "
    "and continue with what remains. Helps agents that lose sight of the task in long episodes or that "
    "drift into activity unrelated to it; each reminder adds the instruction's length to the context."
)
PARAMETERS = {"start_turn": 4, "every_turns": 4, "max_chars": 4000}


def intervene(ctx):
    turn, start, every = ctx.state.turn, ctx.params["start_turn"], ctx.params["every_turns"]
    if turn < start or (turn - start) % every:
        return None
    return (
        "Reminder of the task you are working on:\n"
        f"{ctx.state.instruction[: ctx.params['max_chars']]}\n\n"
        "Compare it with what you have done so far and continue with what remains."
    )
