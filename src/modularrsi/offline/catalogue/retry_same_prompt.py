"""Loop variant: a reply that does not parse is retried with the same prompt, without error feedback."""

from modularrsi.harness.protocols import Ending, Message

MODULE = "agent_loop"
ROLE = "core"
DESCRIPTION = (
    "The reason-act-observe cycle of Terminus-2, except that a reply that does not parse is not answered "
    "with parse-error feedback: the previous prompt is simply sent again, on the view that the model "
    "will answer properly on a retry and the feedback only lengthens the context. Ends when Task "
    "Completion confirms a claim or a limit is reached."
)
PARAMETERS = {}


async def run(loop):
    prompt = await loop.initial_prompt()
    while True:
        loop.check_limits()
        prompt = await loop.maintain_context(prompt)
        reply = await loop.query(prompt)
        if reply.error:
            loop.record(prompt, reply, "", prompt)
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
        notes = loop.interventions()
        if notes:
            response = Message("user", response.content + "\n\n" + "\n\n".join(notes),
                               response.purpose + "+intervention")
        loop.record(prompt, reply, output, response)
        prompt = response
