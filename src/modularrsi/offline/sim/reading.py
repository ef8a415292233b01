"""What the ``sim`` model knows about its task and how it reads a message: by content only.

The task facts come through its privileged channel (the task directory): the reference steps of
``solution/solve.sh``, the instruction, the difficulty. Reading a message uses only its role and text:

- a *requirement* of a step is the instruction's sentence or bullet sharing most words with the step
  (its title and script); a message *restates* it when it holds most of that sentence's words;
- a step's *artefacts* are the paths the instruction names that the step's script also names;
- a message *restates the task* when it holds a good share of the instruction's words.

Nothing here knows any harness function's wording.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from modularrsi.util.steps import STEP_MARKER, parse_steps

WORD = re.compile(r"[a-z0-9_]{4,}")
PATH = re.compile(r"[\w./-]*[/.][\w./-]+")
#: What the sim takes as a request for prose (a summary, questions, answers), not for its next command.
PROSE_REQUEST = re.compile(r"\b(summari[sz]e|list the questions|answer these questions)\b", re.I)


def words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def coverage(part: set[str], text: str) -> float:
    """Share of ``part``'s words that ``text`` contains."""
    return len(part & words(text)) / len(part) if part else 0.0


@dataclass(frozen=True)
class TaskFacts:
    """The task as the sim's privileged channel shows it."""

    name: str
    steps: list[str]
    titles: list[str]
    easy: int | None
    preamble: str
    difficulty: str
    instruction: str

    @property
    def sentences(self) -> list[str]:
        parts = re.split(r"\n\s*[-*]\s+|\n\s*\n|(?<=[.:])\s+(?=[A-Z])", self.instruction)
        return [p.strip() for p in parts if len(words(p)) >= 3]

    def requirement(self, step: int) -> set[str]:
        """The words of the instruction sentence that describes ``step`` (empty when none shares a word)."""
        mine = words(f"{self.titles[step]} {self.steps[step]}")
        best = max(self.sentences, key=lambda s: len(words(s) & mine), default="")
        return words(best) if words(best) & mine else set()

    def artefacts(self, step: int) -> list[str]:
        """Paths the instruction names that this step's script is the first to name (by full path or file
        name): what the step produces, or the input it starts from."""
        named = {p.strip("`.,;:()") for p in PATH.findall(self.instruction)}

        def names(script: str, path: str) -> bool:
            return path in script or path.rsplit("/", 1)[-1] in script

        earlier = "\n".join(self.steps[:step])
        return sorted(p for p in named if len(p) >= 6 and names(self.steps[step], p) and not names(earlier, p))

    def reminded(self, step: int, text: str) -> bool:
        """``text`` restates ``step``'s requirement or names one of its artefacts."""
        requirement = self.requirement(step)
        if requirement and coverage(requirement, text) >= 0.6:
            return True
        return any(p in text for p in self.artefacts(step))

    def restates_task(self, text: str) -> bool:
        return coverage(words(self.instruction), text) >= 0.4


def load_task(task_dir: Path) -> TaskFacts:
    solve = task_dir / "solution" / "solve.sh"
    text = solve.read_text() if solve.is_file() else ""
    steps = parse_steps(text)
    if not steps:
        raise ValueError(f"{task_dir}: sim needs solution/solve.sh with '# step:' sections")
    preamble = []
    for line in text.splitlines():
        if STEP_MARKER.match(line):
            break
        if not line.startswith("#!"):
            preamble.append(line)
    scripts = [s.script for s in steps]
    scripts[0] = scripts[0].replace("\n".join(preamble).strip(), "", 1)
    easy = next((i for i, s in enumerate(steps) if s.easy_to_miss), None)
    metadata = tomllib.loads((task_dir / "task.toml").read_text()).get("metadata", {})
    instruction = task_dir / "instruction.md"
    return TaskFacts(task_dir.name, scripts, [s.title for s in steps], easy, "\n".join(preamble).strip(),
                     str(metadata.get("difficulty", "unknown")),
                     instruction.read_text() if instruction.is_file() else "")
