"""Cron specs and next-run computation."""
from dataclasses import dataclass
from datetime import datetime, timedelta

from .fields import DAYS, MONTHS, CronError, parse_field


@dataclass(frozen=True)
class CronSpec:
    minutes: tuple
    hours: tuple
    days: tuple        # day of month, 1-31
    months: tuple      # 1-12
    weekdays: tuple    # 0-6, 0 = Sunday

    def day_matches(self, d):
        """True if the calendar day d (a date or datetime) is selected."""
        if d.month not in self.months:
            return False
        cron_dow = (d.weekday() + 1) % 7
        return d.day in self.days and cron_dow in self.weekdays


def parse(expr):
    parts = expr.split()
    if len(parts) != 5:
        raise CronError(f"expected 5 fields, got {len(parts)}")
    m, h, dom, mon, dow = parts
    return CronSpec(
        minutes=tuple(parse_field(m, 0, 59, what="minute")),
        hours=tuple(parse_field(h, 0, 23, what="hour")),
        days=tuple(parse_field(dom, 1, 31, what="day-of-month")),
        months=tuple(parse_field(mon, 1, 12, MONTHS, what="month")),
        weekdays=tuple(parse_field(dow, 0, 6, DAYS, what="day-of-week")),
    )


def next_run(spec, after):
    """First datetime strictly after `after` (minute resolution) that matches spec."""
    start = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    day = start.replace(hour=0, minute=0)
    for _ in range(366 * 5):
        if spec.day_matches(day):
            for h in spec.hours:
                for mi in spec.minutes:
                    cand = day.replace(hour=h, minute=mi)
                    if cand >= start:
                        return cand
        day += timedelta(days=1)
    raise CronError("no matching time within five years")
