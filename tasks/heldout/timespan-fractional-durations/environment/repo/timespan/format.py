"""Formatting seconds back into the compact '1h30m' notation."""
from .parse import UNITS


def format_duration(seconds):
    """Format *seconds* (int or float) as e.g. '1d2h', '1h30m', '45s', '0s'."""
    if seconds < 0:
        raise ValueError("negative duration")
    seconds = int(round(seconds))
    if seconds == 0:
        return "0s"
    parts = []
    for unit, size in UNITS.items():
        amount, seconds = divmod(seconds, size)
        if amount:
            parts.append(f"{amount}{unit}")
    return "".join(parts)
