"""Task pools: loading, validation, and running single Harbor trials."""

from modularrsi.tasks.model import ReferenceStep, TaskError, TaskInfo, discover, load_task, parse_steps

__all__ = ["ReferenceStep", "TaskError", "TaskInfo", "discover", "load_task", "parse_steps"]
