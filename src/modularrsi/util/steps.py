"""The named steps of a reference solution (``solution/solve.sh``).

A step starts at a ``# step: <title>`` line (``# step[easy-to-miss]: <title>`` marks the requirement a
task expects agents to overlook); text before the first marker is a preamble shared by all steps. Read by
the task checks (:mod:`modularrsi.tasks`) and by the ``sim`` model's privileged channel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

STEP_MARKER = re.compile(r"^\s*#\s*step(\[(?P<tags>[^\]]*)\])?:\s*(?P<title>.*)$")


@dataclass(frozen=True)
class ReferenceStep:
    """One named step of ``solve.sh``: a self-contained shell snippet."""

    title: str
    script: str
    easy_to_miss: bool = False


def parse_steps(script: str) -> list[ReferenceStep]:
    """Split a solve.sh into its ``# step:`` sections (text before the first marker is a preamble
    shared by all steps and kept with the first)."""
    steps: list[ReferenceStep] = []
    preamble: list[str] = []
    current: tuple[str, bool, list[str]] | None = None
    for line in script.splitlines():
        match = STEP_MARKER.match(line)
        if match:
            if current:
                steps.append(ReferenceStep(current[0], "\n".join(current[2]).strip() + "\n", current[1]))
            tags = (match.group("tags") or "").split(",")
            current = (match.group("title").strip(), "easy-to-miss" in [t.strip() for t in tags], [])
            continue
        if current is None:
            if not line.startswith("#!"):
                preamble.append(line)
        else:
            current[2].append(line)
    if current:
        steps.append(ReferenceStep(current[0], "\n".join(current[2]).strip() + "\n", current[1]))
    if steps and any(p.strip() for p in preamble):
        first = steps[0]
        steps[0] = ReferenceStep(first.title, "\n".join(preamble).strip() + "\n" + first.script,
                                 first.easy_to_miss)
    return steps
