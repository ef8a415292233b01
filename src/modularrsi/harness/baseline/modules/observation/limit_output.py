"""Terminus-2's observation: the new terminal output, cut to a byte budget (head + tail)."""

from modularrsi.harness.protocols import limit_bytes

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
    return limit_bytes(output, limit)
