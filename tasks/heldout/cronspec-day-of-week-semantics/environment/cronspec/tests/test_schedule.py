import unittest
from datetime import datetime

import cronspec


class ScheduleTest(unittest.TestCase):
    def test_business_hours(self):
        spec = cronspec.parse("*/15 9-17 * * mon-fri")
        self.assertEqual(cronspec.next_run(spec, datetime(2024, 5, 3, 16, 50)), datetime(2024, 5, 3, 17, 0))
        self.assertEqual(cronspec.next_run(spec, datetime(2024, 5, 3, 17, 45)), datetime(2024, 5, 6, 9, 0))

    def test_strictly_after(self):
        spec = cronspec.parse("0 0 * * *")
        self.assertEqual(cronspec.next_run(spec, datetime(2024, 1, 1, 0, 0)), datetime(2024, 1, 2, 0, 0))

    def test_month_and_day(self):
        spec = cronspec.parse("30 6 29 feb *")
        self.assertEqual(cronspec.next_run(spec, datetime(2024, 3, 1)), datetime(2028, 2, 29, 6, 30))

    def test_sunday_zero(self):
        spec = cronspec.parse("0 12 * * 0")
        self.assertEqual(cronspec.next_run(spec, datetime(2024, 5, 1)), datetime(2024, 5, 5, 12, 0))

    def test_bad_expression(self):
        with self.assertRaises(cronspec.CronError):
            cronspec.parse("* * * *")


if __name__ == "__main__":
    unittest.main()
