import unittest

from timespan import format_duration, parse_duration


class Decimals(unittest.TestCase):
    def test_issue(self):
        self.assertEqual(parse_duration("1.5h"), 5400)
        self.assertEqual(parse_duration("0.5d"), 43200)

    def test_units(self):
        self.assertEqual(parse_duration("2.5m"), 150)
        self.assertAlmostEqual(parse_duration("1.25s"), 1.25)
        self.assertEqual(parse_duration("1.5h30m"), 7200)
        self.assertEqual(parse_duration("0.25d 1.5h"), 27000)
        self.assertEqual(parse_duration("1.5H"), 5400)

    def test_bare_decimal(self):
        self.assertAlmostEqual(parse_duration("2.5"), 2.5)
        self.assertAlmostEqual(parse_duration(" 0.75 "), 0.75)

    def test_round_trip(self):
        self.assertEqual(format_duration(parse_duration("1.5h")), "1h30m")


class Strict(unittest.TestCase):
    def test_invalid(self):
        for bad in ["", "   ", "1.5x", "10 minutes", "1h30", "-5m", "abc", "h", "1..5h",
                    "1h,30m", "5 s x", "1.h", "1h30m!"]:
            with self.subTest(bad=bad):
                with self.assertRaises(ValueError):
                    parse_duration(bad)

    def test_negative_number(self):
        with self.assertRaises(ValueError):
            parse_duration(-3)


class Regression(unittest.TestCase):
    def test_existing(self):
        self.assertEqual(parse_duration("2d"), 172800)
        self.assertEqual(parse_duration("1h30m"), 5400)
        self.assertEqual(parse_duration("1H30M"), 5400)
        self.assertEqual(parse_duration("45s"), 45)
        self.assertEqual(parse_duration("1h 5m"), 3900)
        self.assertEqual(parse_duration(" 10 m "), 600)
        self.assertEqual(parse_duration("1d 2h 3m 4s"), 93784)
        self.assertEqual(parse_duration("90"), 90)
        self.assertEqual(parse_duration(30), 30)
        self.assertEqual(parse_duration(2.5), 2.5)

    def test_format(self):
        self.assertEqual(format_duration(90061), "1d1h1m1s")
        self.assertEqual(format_duration(0), "0s")


if __name__ == "__main__":
    unittest.main()
