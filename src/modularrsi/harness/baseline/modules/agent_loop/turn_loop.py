"""Terminus-2's loop: one turn per model reply; parse errors fed back; stop on a confirmed claim."""

from modularrsi.harness.protocols import Ending, Message

MODULE = "agent_loop"
ROLE = "core"
DESCRIPTION = (
    "The reason-act-observe cycle of Terminus-2: each turn sends one prompt and executes the commands of "
    "one reply. A reply that does not parse is fed back without executing anything. Parser warnings are "
    "prefixed to the next observation. The episode ends when Task Completion confirms a claim or a limit "
    "is reached. Baseline behaviour; no interventions of its own."
)
PARAMETERS = {}


async def run(loop):
    prompt = await loop.initial_prompt()
    while True:
        loop.check_limits()
        prompt = await loop.maintain_context(prompt)
        reply = await loop.query(prompt)
        if reply.error:
            response = loop.parse_error_feedback(reply)
            loop.record(prompt, reply, "", response)
            prompt = response
            continue
        output = await loop.execute(reply)
        if reply.task_complete:
            verdict = loop.judge_completion(reply, output)
            if verdict.done:
                loop.record(prompt, reply, output, Message("user", output, "observation"))
                return Ending("completed", loop.state.turn)
            response = Message("user", verdict.message, verdict.purpose)
        else:
            response = loop.observe(reply, output)
            if reply.warning:
                text = f"Previous response had warnings:\nWARNINGS: {reply.warning}\n\n{response.content}"
                response = Message("user", text, response.purpose)
        notes = loop.interventions()
        if notes:
            response = Message("user", response.content + "\n\n" + "\n\n".join(notes),
                               response.purpose + "+intervention")
        loop.record(prompt, reply, output, response)
        prompt = response
