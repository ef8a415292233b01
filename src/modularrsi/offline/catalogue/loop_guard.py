"""Loop guard: warn when the agent keeps sending the same command batch."""

MODULE = "agent_loop"
ROLE = "additive"
DESCRIPTION = (
    "Watches the agent's recent command batches (blank waits ignored) and, when the last `repeats` "
    "batches are identical, appends a warning that the agent is repeating the same command without "
    "progress and should change approach: re-read the task, decide what remains and try something "
    "different. Helps agents that fall into repeated-command loops; silent otherwise."
)
PARAMETERS = {"repeats": 3, "window": 12}


def intervene(ctx):
    repeats = ctx.params["repeats"]
    batches = [k.strip() for k in ctx.state.recent_keystrokes(ctx.params["window"]) if k.strip()]
    if len(batches) < repeats or len(set(batches[-repeats:])) != 1:
        return None
    command = batches[-1] if len(batches[-1]) <= 120 else batches[-1][:117] + "..."
    return (
        f"Loop guard: your last {repeats} command batches were identical ({command!r}). You are repeating "
        "the same command and it is not making progress. Stop repeating it: re-read the task, decide what "
        "remains to be done, and change approach (a different command, a different file, or a check of "
        "your assumptions)."
    )
