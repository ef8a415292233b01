import unittest
from datetime import datetime

import cronspec


def runs(expr, after, n):
    spec = cronspec.parse(expr)
    out = []
    for _ in range(n):
        after = cronspec.next_run(spec, after)
        out.append(after)
    return out


class SundaySevenTest(unittest.TestCase):
    def test_seven_is_sunday(self):
        self.assertEqual(runs("0 9 * * 7", datetime(2024, 5, 1), 2),
                         [datetime(2024, 5, 5, 9), datetime(2024, 5, 12, 9)])

    def test_zero_and_seven_same(self):
        a = runs("0 9 * * 0", datetime(2024, 5, 1), 4)
        self.assertEqual(a, runs("0 9 * * 7", datetime(2024, 5, 1), 4))
        self.assertEqual(a, runs("0 9 * * 0,7", datetime(2024, 5, 1), 4))
        self.assertEqual(a, runs("0 9 * * sun", datetime(2024, 5, 1), 4))

    def test_range_ending_in_seven(self):
        self.assertEqual(runs("0 9 * * 5-7", datetime(2024, 5, 1), 4),
                         [datetime(2024, 5, 3, 9), datetime(2024, 5, 4, 9), datetime(2024, 5, 5, 9), datetime(2024, 5, 10, 9)])

    def test_full_week_range(self):
        self.assertEqual(runs("0 0 * * 1-7", datetime(2024, 5, 1), 7),
                         [datetime(2024, 5, d) for d in range(2, 9)])

    def test_range_with_step_to_seven(self):
        # 1-7/3 -> Mon, Thu, Sun
        self.assertEqual(runs("0 6 * * 1-7/3", datetime(2024, 5, 1), 3),
                         [datetime(2024, 5, 2, 6), datetime(2024, 5, 5, 6), datetime(2024, 5, 6, 6)])

    def test_star_step_weekdays(self):
        self.assertEqual(runs("0 9 * * */2", datetime(2024, 5, 4, 10), 3),
                         [datetime(2024, 5, 5, 9), datetime(2024, 5, 7, 9), datetime(2024, 5, 9, 9)])

    def test_out_of_range(self):
        for bad in ["0 0 * * 8", "0 0 * * 7-8", "0 0 * * 6-5", "0 0 0 * *", "0 0 * 13 *"]:
            with self.assertRaises(cronspec.CronError, msg=bad):
                cronspec.parse(bad)


class DomDowOrTest(unittest.TestCase):
    def test_first_or_monday(self):
        self.assertEqual(runs("30 8 1 * 1", datetime(2024, 5, 27, 9), 4),
                         [datetime(2024, 6, 1, 8, 30), datetime(2024, 6, 3, 8, 30),
                          datetime(2024, 6, 10, 8, 30), datetime(2024, 6, 17, 8, 30)])

    def test_friday_or_thirteenth(self):
        self.assertEqual(runs("0 0 13 * 5", datetime(2024, 9, 1), 4),
                         [datetime(2024, 9, 6), datetime(2024, 9, 13), datetime(2024, 9, 20), datetime(2024, 9, 27)])
        self.assertEqual(runs("0 0 13 * 5", datetime(2024, 10, 5), 2),
                         [datetime(2024, 10, 11), datetime(2024, 10, 13)])

    def test_or_with_seven(self):
        self.assertEqual(runs("0 12 15 * 7", datetime(2024, 5, 13), 3),
                         [datetime(2024, 5, 15, 12), datetime(2024, 5, 19, 12), datetime(2024, 5, 26, 12)])

    def test_month_still_restricts(self):
        self.assertEqual(runs("0 0 1 jun 1", datetime(2024, 5, 1), 3),
                         [datetime(2024, 6, 1), datetime(2024, 6, 3), datetime(2024, 6, 10)])
        self.assertEqual(runs("0 0 1 jun 1", datetime(2024, 6, 25), 1), [datetime(2025, 6, 1)])

    def test_only_dom_restricted(self):
        self.assertEqual(runs("0 0 13 * *", datetime(2024, 9, 1), 2), [datetime(2024, 9, 13), datetime(2024, 10, 13)])

    def test_only_dow_restricted(self):
        self.assertEqual(runs("0 0 * * fri", datetime(2024, 9, 1), 2), [datetime(2024, 9, 6), datetime(2024, 9, 13)])

    def test_list_dom_and_dow(self):
        self.assertEqual(runs("0 3 10,20 * sat,sun", datetime(2024, 5, 1), 5),
                         [datetime(2024, 5, 4, 3), datetime(2024, 5, 5, 3), datetime(2024, 5, 10, 3),
                          datetime(2024, 5, 11, 3), datetime(2024, 5, 12, 3)])


if __name__ == "__main__":
    unittest.main()
