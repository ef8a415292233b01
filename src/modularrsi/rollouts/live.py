"""A rich live view of a batch of attempts: progress, ETA, tokens, pass rate so far (an observer)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


class LiveView:
    """Observer for :class:`modularrsi.rollouts.runner.Runner` events; never changes state."""

    def __init__(self, console: Console, title: str = "attempts"):
        self.progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                                 TextColumn("{task.fields[stats]}"), console=console, transient=False)
        self.title = title
        self.task_id = None
        self.passed = self.done = self.reused = self.tokens = 0

    def __enter__(self) -> LiveView:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def _stats(self) -> str:
        rate = f"{self.passed / self.done:.0%}" if self.done else "—"
        return f"pass {self.passed}/{self.done} ({rate}) · tokens {self.tokens:,} · reused {self.reused}"

    def __call__(self, event: str, data: dict) -> None:
        if event == "planned":
            self.task_id = self.progress.add_task(self.title, total=data["attempts"], stats=self._stats())
        elif event == "finished" and self.task_id is not None:
            attempt = data["attempt"]
            self.done += 1
            self.passed += int(attempt.passed)
            self.reused += int(data["reused"])
            self.tokens += attempt.input_tokens + attempt.output_tokens
            self.progress.update(self.task_id, advance=1, stats=self._stats())
