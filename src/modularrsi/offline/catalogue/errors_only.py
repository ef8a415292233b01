"""Observation filter: show only the lines that signal a problem; a quiet command shows a one-line note."""

import re

MODULE = "observation"
ROLE = "additive"
DESCRIPTION = (
    "Reduces every observation to the lines that look like errors or failures, and replaces an output "
    "without such lines by a one-line note that the command finished without errors. Keeps the context "
    "small by assuming that successful output carries no information the agent needs."
)
PARAMETERS = {"max_error_lines": 30}

ERROR = re.compile(r"error|fail|traceback|exception|denied|not found|no such|fatal", re.I)


def shape(output, ctx):
    errors = [line for line in output.splitlines() if ERROR.search(line)][:ctx.params["max_error_lines"]]
    return "\n".join(errors) + "\n" if errors else "(the command finished; no errors)\n"
