"""Parsing of single cron fields."""


class CronError(ValueError):
    pass


MONTHS = {n: i for i, n in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1)}
DAYS = {n: i for i, n in enumerate(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])}


def _value(text, lo, hi, names, what):
    t = text.lower()
    if names and t in names:
        return names[t]
    if not t.isdigit():
        raise CronError(f"{what}: invalid value {text!r}")
    v = int(t)
    if not lo <= v <= hi:
        raise CronError(f"{what}: value {v} out of range {lo}-{hi}")
    return v


def parse_field(expr, lo, hi, names=None, what="field"):
    """Return the sorted list of values selected by a cron field expression."""
    if not expr:
        raise CronError(f"{what}: empty")
    values = set()
    for part in expr.split(","):
        step = 1
        if "/" in part:
            part, _, s = part.partition("/")
            if not s.isdigit() or int(s) == 0:
                raise CronError(f"{what}: invalid step {s!r}")
            step = int(s)
        if part == "*":
            start, end = lo, hi
        elif "-" in part:
            a, _, b = part.partition("-")
            start = _value(a, lo, hi, names, what)
            end = _value(b, lo, hi, names, what)
            if start > end:
                raise CronError(f"{what}: descending range {part!r}")
        else:
            if step != 1:
                raise CronError(f"{what}: step needs '*' or a range")
            start = end = _value(part, lo, hi, names, what)
        values.update(range(start, end + 1, step))
    return sorted(values)
