"""Parsing of duration strings such as '2d', '1h30m', '45s', '1h 5m'."""
import re

UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}

_PART = re.compile(r"(\d+)\s*([dhms])")


def parse_duration(text):
    """Return the number of seconds described by *text*.

    A bare number is taken as seconds: parse_duration("90") == 90.
    """
    if isinstance(text, (int, float)):
        if text < 0:
            raise ValueError("negative duration")
        return text
    text = text.strip().lower()
    if text.isdigit():
        return int(text)
    total = 0
    for amount, unit in _PART.findall(text):
        total += int(amount) * UNITS[unit]
    return total
