"""A working-day calendar: weekend days plus a set of public holidays."""
import datetime as _dt

_ONE_DAY = _dt.timedelta(days=1)


class WorkCalendar:
    def __init__(self, holidays=(), weekend=(5, 6)):
        """*weekend* holds date.weekday() numbers (Monday=0 ... Sunday=6)."""
        self.holidays = frozenset(holidays)
        self.weekend = frozenset(weekend)
        if len(self.weekend) >= 7:
            raise ValueError("a calendar needs at least one working weekday")

    def is_business_day(self, day):
        return day.weekday() not in self.weekend and day not in self.holidays

    def next_business_day(self, day):
        """*day* itself if it is a business day, else the next one."""
        while not self.is_business_day(day):
            day += _ONE_DAY
        return day

    def add_business_days(self, start, n):
        """Move *n* business days from *start* (backwards if n < 0)."""
        step = _ONE_DAY if n >= 0 else -_ONE_DAY
        remaining = abs(n)
        day = start
        while remaining:
            day += step
            if self.is_business_day(day):
                remaining -= 1
        return day

    def business_days_between(self, start, end):
        """Number of business days d with start <= d < end (negative if end < start).

        Uses whole weeks arithmetic so that multi-year spans stay fast.
        """
        if end < start:
            return -self.business_days_between(end, start)
        full_weeks, extra = divmod((end - start).days, 7)
        count = full_weeks * 5
        first = start.weekday()
        for i in range(extra):
            if (first + i) % 7 < 5:
                count += 1
        count -= sum(1 for h in self.holidays if start <= h < end)
        return count
