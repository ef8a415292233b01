"""Reading a Harbor task directory into a checked :class:`TaskInfo`, with one-line errors.

A task is a directory with ``task.toml``, ``instruction.md``, ``environment/``, ``tests/test.sh``
and (for the project's own pools) ``solution/solve.sh`` made of named steps. Problems are reported
as :class:`TaskError` naming the task, the file and what is wrong; one bad task never hides others.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from harbor.models.task.config import TaskConfig
from pydantic import ValidationError

from modularrsi.util.errors import UserError
from modularrsi.util.steps import ReferenceStep, parse_steps


class TaskNotFound(UserError, FileNotFoundError):  # noqa: N818 - read as "task not found"
    """A path given as a task (or a directory of tasks) that holds none."""


class TaskError(UserError):
    """A task that cannot be used, with the file and the problem."""

    def __init__(self, task: str, file: str, problem: str):
        super().__init__(f"{task}: {file}: {problem}")
        self.task, self.file, self.problem = task, file, problem


@dataclass
class TaskInfo:
    """A task directory that passed the structural checks."""

    path: Path
    name: str
    config: TaskConfig
    instruction: str
    metadata: dict = field(default_factory=dict)
    steps: list[ReferenceStep] = field(default_factory=list)

    @property
    def category(self) -> str:
        return str(self.metadata.get("category", "uncategorised"))

    @property
    def difficulty(self) -> str:
        return str(self.metadata.get("difficulty", "unknown"))

    @property
    def domain(self) -> str:
        return str(self.metadata.get("domain", "terminal"))


def load_task(path: Path, *, need_solution: bool = True) -> TaskInfo:
    """Check the structure of one task directory; raise :class:`TaskError` on the first problem."""
    name = path.name
    if not path.is_dir():
        raise TaskError(name, str(path), "not a directory")
    toml_path = path / "task.toml"
    if not toml_path.is_file():
        raise TaskError(name, "task.toml", "missing")
    try:
        raw = tomllib.loads(toml_path.read_text())
        config = TaskConfig.model_validate(raw)
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(name, "task.toml", f"not valid TOML ({exc})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise TaskError(name, "task.toml", f"field '{where}': {first['msg']}") from None
    instruction = path / "instruction.md"
    if not instruction.is_file() or not instruction.read_text().strip():
        raise TaskError(name, "instruction.md", "missing or empty")
    if not (path / "environment").is_dir():
        raise TaskError(name, "environment/", "missing directory")
    if not (path / "tests" / "test.sh").is_file():
        raise TaskError(name, "tests/test.sh", "missing (the verifier script)")
    steps: list[ReferenceStep] = []
    solve = path / "solution" / "solve.sh"
    if need_solution and not solve.is_file():
        raise TaskError(name, "solution/solve.sh", "missing (the reference solution)")
    if solve.is_file():
        steps = parse_steps(solve.read_text())
    return TaskInfo(path, name, config, instruction.read_text(), dict(raw.get("metadata", {})), steps)


def discover(paths: list[Path]) -> list[Path]:
    """Task directories named by ``paths``: a task itself, or a directory of tasks (sorted)."""
    found: list[Path] = []
    for path in paths:
        if (path / "task.toml").is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(_tasks_in(path))
        else:
            raise TaskNotFound(f"{path}: no such task or task directory")
    seen: dict[str, Path] = {}
    for task in found:
        if task.name in seen and seen[task.name] != task:
            raise UserError(f"task name '{task.name}' appears twice: {seen[task.name]} and {task}")
        seen[task.name] = task
    return found


def _tasks_in(folder: Path) -> list[Path]:
    """The task directories directly inside ``folder`` (those with a task.toml); a folder that is a
    task without its task.toml, or that holds no task, is an error."""
    if any((folder / part).exists() for part in ("instruction.md", "environment", "tests")):
        raise TaskNotFound(f"{folder}: looks like a task but has no task.toml; add one (see tasks/README.md)")
    children = sorted(p for p in folder.iterdir() if (p / "task.toml").is_file() and not p.name.startswith("."))
    if not children:
        raise TaskNotFound(f"{folder}: no task in it (a task is a directory with a task.toml)")
    return children
