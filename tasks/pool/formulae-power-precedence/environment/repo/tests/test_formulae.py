import unittest

from formulae import BinOp, FormulaError, Neg, Num, evaluate, normalize, parse


class ParseTests(unittest.TestCase):
    def test_precedence(self):
        self.assertEqual(parse("1 + 2 * 3"), BinOp("+", Num(1), BinOp("*", Num(2), Num(3))))

    def test_left_assoc(self):
        self.assertEqual(evaluate("10 - 4 - 3"), 3)
        self.assertEqual(evaluate("64 / 4 / 2"), 8)

    def test_unary(self):
        self.assertEqual(parse("-x"), Neg(parse("x")))
        self.assertEqual(evaluate("2 * -3"), -6)

    def test_errors(self):
        for bad in ["1 +", "(1", "1 2", "$"]:
            with self.assertRaises(FormulaError):
                parse(bad)


class EvaluateTests(unittest.TestCase):
    def test_vars_and_calls(self):
        self.assertEqual(evaluate("price * (1 + vat)", price=10, vat=0.5), 15)
        self.assertEqual(evaluate("max(1, min(5, x))", x=3), 3)

    def test_power(self):
        self.assertEqual(evaluate("2 ^ 10"), 1024)

    def test_division_by_zero(self):
        with self.assertRaises(FormulaError):
            evaluate("1 / 0")


class NormalizeTests(unittest.TestCase):
    def test_minimal_parens(self):
        self.assertEqual(normalize("((1 + 2)) * 3"), "(1 + 2) * 3")
        self.assertEqual(normalize("1 + (2 * 3)"), "1 + 2 * 3")
        self.assertEqual(normalize("1 - (2 - 3)"), "1 - (2 - 3)")


if __name__ == "__main__":
    unittest.main()
