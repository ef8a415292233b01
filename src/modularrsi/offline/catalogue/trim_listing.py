"""Observation filter: collapse long listings to head and tail, keeping the error lines in between."""

import re

MODULE = "observation"
ROLE = "additive"
DESCRIPTION = (
    "When an observation has more than max_lines lines (trailing blank lines ignored), keeps the first "
    "head_lines and the last tail_lines, keeps up to max_error_lines lines from the middle that look like "
    "errors or failures, and replaces the rest with a line counting what was omitted. Runs before the "
    "byte limiter. Helps when long listings or logs bury the few lines that matter and crowd the context."
)
PARAMETERS = {"max_lines": 60, "head_lines": 20, "tail_lines": 20, "max_error_lines": 20}

ERROR = re.compile(r"error|fail|traceback|exception|denied|not found|no such|fatal|cannot|segmentation", re.I)


def shape(output, ctx):
    p = ctx.params
    lines = output.rstrip("\n").split("\n")
    if len(lines) <= p["max_lines"]:
        return output
    cut = max(p["head_lines"], len(lines) - p["tail_lines"])
    head, middle, tail = lines[:p["head_lines"]], lines[p["head_lines"]:cut], lines[cut:]
    errors = [line for line in middle if ERROR.search(line)][:p["max_error_lines"]]
    note = f"[... {len(middle) - len(errors)} of {len(lines)} lines omitted"
    note += f"; {len(errors)} error line(s) kept below ...]" if errors else " ...]"
    return "\n".join(head + [note] + errors + tail) + "\n"
