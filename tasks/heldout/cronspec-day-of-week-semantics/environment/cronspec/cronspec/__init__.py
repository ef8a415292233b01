"""cronspec - five-field cron expressions."""
from .fields import CronError
from .schedule import CronSpec, next_run, parse

__all__ = ["CronError", "CronSpec", "next_run", "parse"]
__version__ = "1.3.0"
