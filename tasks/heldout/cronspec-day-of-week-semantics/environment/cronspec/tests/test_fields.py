import unittest

from cronspec.fields import DAYS, MONTHS, CronError, parse_field


class FieldTest(unittest.TestCase):
    def test_star_and_step(self):
        self.assertEqual(parse_field("*/20", 0, 59), [0, 20, 40])
        self.assertEqual(parse_field("10-20/5", 0, 59), [10, 15, 20])

    def test_lists_and_names(self):
        self.assertEqual(parse_field("jan,mar-may", 1, 12, MONTHS), [1, 3, 4, 5])
        self.assertEqual(parse_field("MON-wed", 0, 6, DAYS), [1, 2, 3])

    def test_errors(self):
        for bad in ["", "60", "5-1", "*/0", "a", "3/2", "1,,2"]:
            with self.assertRaises(CronError, msg=bad):
                parse_field(bad, 0, 59)


if __name__ == "__main__":
    unittest.main()
