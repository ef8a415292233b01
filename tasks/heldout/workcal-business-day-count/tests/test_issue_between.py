import datetime as dt
import random
import time
import unittest

from workcal import WorkCalendar, days_open, due_date

D = dt.date


def brute(cal, start, end):
    sign = 1
    if end < start:
        start, end, sign = end, start, -1
    n = 0
    d = start
    while d < end:
        n += cal.is_business_day(d)
        d += dt.timedelta(days=1)
    return sign * n


XMAS = [D(2026, 12, 25), D(2026, 12, 26), D(2027, 1, 1), D(2027, 12, 25), D(2028, 1, 1)]


class WeekendHolidays(unittest.TestCase):
    def test_issue(self):
        cal = WorkCalendar(holidays=XMAS[:3])
        self.assertEqual(cal.business_days_between(D(2026, 12, 21), D(2027, 1, 4)), 8)
        self.assertEqual(days_open(D(2026, 12, 21), D(2027, 1, 4), cal), 8)
        self.assertEqual(cal.business_days_between(D(2027, 1, 4), D(2026, 12, 21)), -8)

    def test_random_default_weekend(self):
        rng = random.Random(1234)
        hol = XMAS + [D(2027, 5, 1), D(2027, 5, 8), D(2026, 11, 1)]
        cal = WorkCalendar(holidays=hol)
        for _ in range(300):
            a = D(2026, 10, 1) + dt.timedelta(days=rng.randrange(500))
            b = D(2026, 10, 1) + dt.timedelta(days=rng.randrange(500))
            self.assertEqual(cal.business_days_between(a, b), brute(cal, a, b), (a, b))


class OtherWeekends(unittest.TestCase):
    def test_fri_sat(self):
        cal = WorkCalendar(weekend=(4, 5))
        # Sun 2026-03-01 .. Sun 2026-03-08: Sun-Thu are working days
        self.assertEqual(cal.business_days_between(D(2026, 3, 1), D(2026, 3, 8)), 5)
        self.assertEqual(cal.business_days_between(D(2026, 3, 6), D(2026, 3, 8)), 0)
        self.assertEqual(cal.business_days_between(D(2026, 3, 7), D(2026, 3, 10)), 2)

    def test_random_calendars(self):
        rng = random.Random(99)
        calendars = [
            WorkCalendar(weekend=(4, 5), holidays=[D(2026, 3, 20), D(2026, 3, 21), D(2026, 6, 16)]),
            WorkCalendar(weekend=(6,), holidays=[D(2026, 4, 5), D(2026, 4, 6)]),
            WorkCalendar(weekend=(), holidays=[D(2026, 1, 1)]),
            WorkCalendar(weekend=(0, 2, 4), holidays=[D(2026, 2, 2), D(2026, 2, 3)]),
        ]
        for cal in calendars:
            for _ in range(150):
                a = D(2026, 1, 1) + dt.timedelta(days=rng.randrange(400))
                b = D(2026, 1, 1) + dt.timedelta(days=rng.randrange(400))
                self.assertEqual(cal.business_days_between(a, b), brute(cal, a, b), (sorted(cal.weekend), a, b))

    def test_days_open_dubai(self):
        cal = WorkCalendar(weekend=(4, 5))
        self.assertEqual(days_open(D(2026, 3, 1), D(2026, 3, 15), cal), 10)


class Regression(unittest.TestCase):
    def test_existing(self):
        cal = WorkCalendar(holidays=[D(2026, 5, 1)])
        self.assertEqual(cal.business_days_between(D(2026, 4, 27), D(2026, 5, 4)), 4)
        self.assertEqual(cal.business_days_between(D(2026, 5, 4), D(2026, 5, 4)), 0)
        self.assertEqual(cal.add_business_days(D(2026, 4, 30), 1), D(2026, 5, 4))
        self.assertEqual(cal.add_business_days(D(2026, 5, 4), -1), D(2026, 4, 30))
        self.assertEqual(due_date(dt.datetime(2026, 3, 6, 18, 0), 1, WorkCalendar()), D(2026, 3, 10))
        self.assertEqual(days_open(D(2026, 3, 2), D(2026, 3, 16), WorkCalendar()), 10)
        with self.assertRaises(ValueError):
            WorkCalendar(weekend=range(7))

    def test_long_range_is_fast(self):
        cal = WorkCalendar(holidays=XMAS)
        t = time.perf_counter()
        for _ in range(20):
            n = cal.business_days_between(D(1, 1, 1), D(9999, 12, 31))
        self.assertLess(time.perf_counter() - t, 5.0)
        self.assertEqual(n, brute(WorkCalendar(), D(1, 1, 1), D(9999, 12, 31)) - 2)  # two of the holidays are weekdays


if __name__ == "__main__":
    unittest.main()
