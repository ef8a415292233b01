"""Observation filter: remove terminal escape sequences and carriage-return overdraws."""

import re

MODULE = "observation"
ROLE = "additive"
DESCRIPTION = (
    "Removes ANSI escape sequences (colours, cursor moves) and keeps only the last overdraw of lines "
    "rewritten with carriage returns (progress bars), so the agent reads the text a person would see. "
    "Leaves plain output unchanged. Helps with tools that colour or animate their output."
)
PARAMETERS = {"max_line_chars": 4000}

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def shape(output, ctx):
    text = ANSI.sub("", output)
    lines = [line.split("\r")[-1] if "\r" in line.rstrip("\r") else line.rstrip("\r") for line in text.split("\n")]
    cap = ctx.params["max_line_chars"]
    return "\n".join(line[:cap] for line in lines)
