"""Loop intervention: tell the agent how many turns it has used."""

MODULE = "agent_loop"
ROLE = "additive"
DESCRIPTION = (
    "Appends a one-line note with the number of turns used so far (and the limit, when there is one) to "
    "every every_turns-th prompt, so that the agent can pace itself and wrap up before the limit instead "
    "of being cut off mid-task. Silent on the other turns."
)
PARAMETERS = {"every_turns": 3}


def intervene(ctx):
    turn = ctx.state.turn
    if turn == 0 or turn % ctx.params["every_turns"]:
        return None
    limit = ctx.state.max_turns
    return f"(Turn {turn}{f' of {limit}' if limit else ''} used.)"
