"""Task pools: loading, validation, and running single Harbor trials."""

from modularrsi.tasks.model import TaskError, TaskInfo, discover, load_task
from modularrsi.util.steps import ReferenceStep, parse_steps

__all__ = ["ReferenceStep", "TaskError", "TaskInfo", "discover", "load_task", "parse_steps"]
