"""Holiday lists are plain text files:

    # comment
    2026-12-25  Christmas Day
    2026-12-26  Boxing Day
"""
import datetime as _dt


def parse_holidays(text):
    """Return {date: name} from holiday-file text."""
    out = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        day, _, name = line.partition(" ")
        try:
            out[_dt.date.fromisoformat(day)] = name.strip() or "holiday"
        except ValueError:
            raise ValueError(f"line {lineno}: bad date {day!r}") from None
    return out


def load_holidays(path):
    with open(path, encoding="utf-8") as fh:
        return parse_holidays(fh.read())
