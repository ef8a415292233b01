import random
import unittest
from decimal import Decimal
from fractions import Fraction

from ledgerkit import allocate, format_cents, parse_amount, split_evenly, split_invoice


class Examples(unittest.TestCase):
    def test_issue(self):
        self.assertEqual(allocate(100, [1, 1, 1]), [34, 33, 33])
        self.assertEqual(allocate(200, [1, 1, 1]), [67, 67, 66])
        self.assertEqual(allocate(1, [1, 1]), [1, 0])

    def test_largest_remainder(self):
        # exact: 14.2857, 28.5714, 57.1429 -> floors 14, 28, 57 (99); largest remainder is .5714
        self.assertEqual(allocate(100, [1, 2, 4]), [14, 29, 57])
        self.assertEqual(allocate(10, [Decimal("0.3"), Decimal("0.3"), Decimal("0.4")]), [3, 3, 4])
        self.assertEqual(allocate(5, [Decimal("0.1"), Decimal("0.2"), Decimal("0.7")]), [1, 1, 3])
        self.assertEqual(allocate(7, [0, 1, 0, 1]), [0, 4, 0, 3])
        self.assertEqual(allocate(0, [1, 2]), [0, 0])

    def test_split_evenly(self):
        self.assertEqual(split_evenly(100, 3), [34, 33, 33])
        self.assertEqual(split_evenly(5, 7), [1, 1, 1, 1, 1, 0, 0])

    def test_invalid(self):
        for bad in ([], [1, -1], [0, 0]):
            with self.assertRaises(ValueError):
                allocate(100, bad)
        with self.assertRaises(ValueError):
            split_evenly(100, 0)


def reference(total, ratios):
    exact = [Fraction(total) * Fraction(r) / sum(Fraction(x) for x in ratios) for r in ratios]
    shares = [e.numerator // e.denominator for e in exact]
    left = total - sum(shares)
    order = sorted(range(len(ratios)), key=lambda i: (-(exact[i] - shares[i]), i))
    for i in order[:left]:
        shares[i] += 1
    return shares


class Random(unittest.TestCase):
    def test_against_reference(self):
        rng = random.Random(31337)
        for _ in range(2000):
            n = rng.randint(1, 7)
            if rng.random() < 0.5:
                ratios = [rng.randint(0, 9) for _ in range(n)]
            else:
                ratios = [Decimal(rng.randint(0, 999)) / 100 for _ in range(n)]
            if sum(ratios) == 0:
                continue
            total = rng.randint(0, 100000)
            got = allocate(total, ratios)
            self.assertEqual(got, reference(total, ratios), (total, ratios))
            self.assertEqual(sum(got), total)
            self.assertTrue(all(isinstance(x, int) for x in got))


class Negative(unittest.TestCase):
    def test_mirror(self):
        self.assertEqual(allocate(-100, [1, 1, 1]), [-34, -33, -33])
        self.assertEqual(allocate(-200, [1, 1, 1]), [-67, -67, -66])
        self.assertEqual(allocate(-1, [1, 1]), [-1, 0])
        self.assertEqual(split_evenly(-5, 7), [-1, -1, -1, -1, -1, 0, 0])

    def test_random_mirror(self):
        rng = random.Random(5)
        for _ in range(500):
            ratios = [rng.randint(0, 9) for _ in range(rng.randint(1, 6))]
            if sum(ratios) == 0:
                continue
            total = rng.randint(1, 50000)
            self.assertEqual(allocate(-total, ratios), [-x for x in allocate(total, ratios)])

    def test_credit_note(self):
        totals = split_invoice([("credit", "-10.00"), ("fee", "-0.01")], {"a": 1, "b": 1, "c": 1})
        self.assertEqual(sum(totals.values()), -1001)
        self.assertEqual(totals, {"a": -335, "b": -333, "c": -333})


class Invoice(unittest.TestCase):
    def test_adds_up(self):
        lines = [("rent", "1000.00"), ("power", "333.33"), ("water", "0.05")]
        totals = split_invoice(lines, {"ops": 1, "dev": 1, "qa": 1})
        self.assertEqual(sum(totals.values()), 133338)
        self.assertEqual(totals, {"dev": 44447, "ops": 44446, "qa": 44445})

    def test_regression(self):
        self.assertEqual(split_invoice([("rent", "1000.00")], {"ops": 1, "dev": 3}), {"dev": 75000, "ops": 25000})
        self.assertEqual(allocate(300, [1, 1, 1]), [100, 100, 100])
        self.assertEqual(allocate(1000, [Decimal("0.25"), Decimal("0.75")]), [250, 750])
        self.assertEqual(parse_amount("-0.5"), -50)
        self.assertEqual(format_cents(-1234), "-12.34")


if __name__ == "__main__":
    unittest.main()
