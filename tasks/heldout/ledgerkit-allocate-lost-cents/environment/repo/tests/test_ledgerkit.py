import unittest
from decimal import Decimal

from ledgerkit import allocate, format_cents, parse_amount, split_evenly, split_invoice


class MoneyTests(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_amount("12.34"), 1234)
        self.assertEqual(parse_amount("-0.5"), -50)
        with self.assertRaises(ValueError):
            parse_amount("1.005")

    def test_format(self):
        self.assertEqual(format_cents(-1234), "-12.34")
        self.assertEqual(format_cents(5), "0.05")


class AllocateTests(unittest.TestCase):
    def test_even(self):
        self.assertEqual(allocate(300, [1, 1, 1]), [100, 100, 100])

    def test_ratios(self):
        self.assertEqual(allocate(1000, [Decimal("0.25"), Decimal("0.75")]), [250, 750])

    def test_invalid(self):
        with self.assertRaises(ValueError):
            allocate(100, [])
        with self.assertRaises(ValueError):
            allocate(100, [1, -1])

    def test_split_evenly(self):
        self.assertEqual(split_evenly(90, 3), [30, 30, 30])


class InvoiceTests(unittest.TestCase):
    def test_split(self):
        self.assertEqual(split_invoice([("rent", "1000.00")], {"ops": 1, "dev": 3}),
                         {"dev": 75000, "ops": 25000})


if __name__ == "__main__":
    unittest.main()
