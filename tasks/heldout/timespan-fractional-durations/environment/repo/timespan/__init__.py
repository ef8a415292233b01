"""timespan - parse and format human durations like '1h30m'."""
from .parse import parse_duration, UNITS
from .format import format_duration

__all__ = ["parse_duration", "format_duration", "UNITS"]
