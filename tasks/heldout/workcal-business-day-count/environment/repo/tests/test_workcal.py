import datetime as dt
import unittest

from workcal import WorkCalendar, days_open, due_date, parse_holidays

D = dt.date


class CalendarTests(unittest.TestCase):
    def setUp(self):
        self.cal = WorkCalendar(holidays=[D(2026, 5, 1)])

    def test_is_business_day(self):
        self.assertTrue(self.cal.is_business_day(D(2026, 4, 30)))
        self.assertFalse(self.cal.is_business_day(D(2026, 5, 1)))   # holiday
        self.assertFalse(self.cal.is_business_day(D(2026, 5, 2)))   # Saturday

    def test_add(self):
        self.assertEqual(self.cal.add_business_days(D(2026, 4, 30), 1), D(2026, 5, 4))
        self.assertEqual(self.cal.add_business_days(D(2026, 5, 4), -1), D(2026, 4, 30))

    def test_between(self):
        self.assertEqual(self.cal.business_days_between(D(2026, 4, 27), D(2026, 5, 4)), 4)
        self.assertEqual(self.cal.business_days_between(D(2026, 5, 4), D(2026, 4, 27)), -4)


class SlaTests(unittest.TestCase):
    def test_due(self):
        cal = WorkCalendar()
        self.assertEqual(due_date(dt.datetime(2026, 3, 6, 18, 0), 1, cal), D(2026, 3, 10))

    def test_days_open(self):
        self.assertEqual(days_open(D(2026, 3, 2), D(2026, 3, 16), WorkCalendar()), 10)


class HolidayFileTests(unittest.TestCase):
    def test_parse(self):
        got = parse_holidays("# x\n2026-12-25  Christmas Day\n\n2026-12-26\n")
        self.assertEqual(got, {D(2026, 12, 25): "Christmas Day", D(2026, 12, 26): "holiday"})


if __name__ == "__main__":
    unittest.main()
