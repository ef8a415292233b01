"""Observation filter: keep only the end of a long output, with a count of what was cut."""

MODULE = "observation"
ROLE = "additive"
DESCRIPTION = (
    "When an observation is longer than max_bytes, keeps its last tail_lines lines (at most max_bytes) "
    "and puts a one-line note of how many lines were cut in front of them. Helps when long command output "
    "crowds the context and the agent loses what the latest command did; the start of a long output is "
    "lost, so it suits commands whose result is at the end."
)
PARAMETERS = {"max_bytes": 2000, "tail_lines": 25}


def shape(output, ctx):
    if len(output.encode()) <= ctx.params["max_bytes"]:
        return output
    lines = output.rstrip("\n").split("\n")
    kept = lines[-ctx.params["tail_lines"]:]
    text = "\n".join(kept)[-ctx.params["max_bytes"]:]
    return f"[... {len(lines) - len(kept)} earlier lines cut ...]\n{text}\n"
