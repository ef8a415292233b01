import unittest

from timespan import format_duration, parse_duration


class ParseTests(unittest.TestCase):
    def test_units(self):
        self.assertEqual(parse_duration("2d"), 172800)
        self.assertEqual(parse_duration("1h30m"), 5400)
        self.assertEqual(parse_duration("45s"), 45)

    def test_spaces(self):
        self.assertEqual(parse_duration("1h 5m"), 3900)
        self.assertEqual(parse_duration(" 10 m "), 600)

    def test_bare_number(self):
        self.assertEqual(parse_duration("90"), 90)
        self.assertEqual(parse_duration(30), 30)


class FormatTests(unittest.TestCase):
    def test_format(self):
        self.assertEqual(format_duration(5400), "1h30m")
        self.assertEqual(format_duration(90061), "1d1h1m1s")
        self.assertEqual(format_duration(0), "0s")


if __name__ == "__main__":
    unittest.main()
