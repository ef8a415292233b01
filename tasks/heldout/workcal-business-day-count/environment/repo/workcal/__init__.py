"""workcal - business-day arithmetic for the support SLA tooling."""
from .calendar import WorkCalendar
from .holidays import load_holidays, parse_holidays
from .sla import due_date, days_open

__all__ = ["WorkCalendar", "load_holidays", "parse_holidays", "due_date", "days_open"]
