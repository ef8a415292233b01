"""Terminus-2's observation: the new terminal output, cut to a byte budget (head + tail)."""

MODULE = "observation"
ROLE = "additive"
DESCRIPTION = (
    "Keeps terminal output under max_bytes by keeping the first and last halves and stating how many "
    "interior bytes were omitted, as Terminus-2 does (10 KB). Always useful as the last filter: it "
    "bounds what one observation can cost in context."
)
PARAMETERS = {"max_bytes": 10000}


def shape(output, ctx):
    limit = ctx.params["max_bytes"]
    data = output.encode("utf-8")
    if len(data) <= limit:
        return output
    half = limit // 2
    head = data[:half].decode("utf-8", errors="ignore")
    tail = data[-half:].decode("utf-8", errors="ignore")
    omitted = len(data) - len(head.encode("utf-8")) - len(tail.encode("utf-8"))
    return f"{head}\n[... output limited to {limit} bytes; {omitted} interior bytes omitted ...]\n{tail}"
