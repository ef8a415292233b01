import math
import random
import unittest

from formulae import BinOp, Call, FormulaError, Neg, Num, Var, evaluate, normalize, parse, to_string


class PowerSemantics(unittest.TestCase):
    def test_right_assoc(self):
        self.assertEqual(evaluate("2 ^ 3 ^ 2"), 512)
        self.assertEqual(parse("2^3^2"), BinOp("^", Num(2), BinOp("^", Num(3), Num(2))))
        self.assertEqual(evaluate("(2 ^ 3) ^ 2"), 64)

    def test_unary_minus_vs_power(self):
        self.assertEqual(evaluate("-2 ^ 2"), -4)
        self.assertEqual(parse("-2^2"), Neg(BinOp("^", Num(2), Num(2))))
        self.assertEqual(evaluate("-x ^ 2", x=3), -9)
        self.assertEqual(evaluate("(-2) ^ 2"), 4)
        self.assertEqual(evaluate("--2 ^ 2"), 4)

    def test_negative_exponent(self):
        self.assertEqual(evaluate("2 ^ -1"), 0.5)
        self.assertEqual(evaluate("2 ^ -x ^ 2", x=1), 0.5)
        self.assertEqual(parse("2^-3^2"), BinOp("^", Num(2), Neg(BinOp("^", Num(3), Num(2)))))

    def test_unary_still_tight_for_others(self):
        self.assertEqual(parse("-2 * 3"), BinOp("*", Neg(Num(2)), Num(3)))
        self.assertEqual(parse("2 * -3"), BinOp("*", Num(2), Neg(Num(3))))
        self.assertEqual(evaluate("1 - -2"), 3)
        self.assertEqual(evaluate("-2 + 5"), 3)
        self.assertEqual(evaluate("+2 ^ 2"), 4)

    def test_in_calls(self):
        self.assertEqual(evaluate("max(-2 ^ 2, -5)"), -4)
        self.assertEqual(evaluate("sqrt(2 ^ 2 ^ 2)"), 4.0)


class Normalize(unittest.TestCase):
    def test_issue_examples(self):
        self.assertEqual(normalize("2 ^ (3 ^ 2)"), "2 ^ 3 ^ 2")
        self.assertEqual(normalize("(2 ^ 3) ^ 2"), "(2 ^ 3) ^ 2")
        self.assertEqual(normalize("-(2 ^ 2)"), "-2 ^ 2")
        self.assertEqual(normalize("(-2) ^ 2"), "(-2) ^ 2")
        self.assertEqual(normalize("2 ^ (-1)"), "2 ^ -1")

    def test_more(self):
        self.assertEqual(normalize("-(2 * 3)"), "-(2 * 3)")
        self.assertEqual(normalize("(-2) * 3"), "-2 * 3")
        self.assertEqual(normalize("2 ^ (1 + 1)"), "2 ^ (1 + 1)")
        self.assertEqual(normalize("(x * y) ^ 2"), "(x * y) ^ 2")
        self.assertEqual(normalize("x * (y ^ 2)"), "x * y ^ 2")
        self.assertEqual(normalize("1 - (-2)"), "1 - -2")

    def test_regression(self):
        self.assertEqual(normalize("((1 + 2)) * 3"), "(1 + 2) * 3")
        self.assertEqual(normalize("1 + (2 * 3)"), "1 + 2 * 3")
        self.assertEqual(normalize("1 - (2 - 3)"), "1 - (2 - 3)")
        self.assertEqual(normalize("(1 - 2) - 3"), "1 - 2 - 3")
        self.assertEqual(normalize("max(1, (2))"), "max(1, 2)")


def random_tree(rng, depth, small_exponents=False):
    if depth == 0 or rng.random() < 0.25:
        return Num(rng.randint(1, 4)) if rng.random() < 0.7 else Var(rng.choice("xy"))
    r = rng.random()
    if r < 0.2:
        return Neg(random_tree(rng, depth - 1, small_exponents))
    if r < 0.25:
        return Call("max", (random_tree(rng, depth - 1, small_exponents),
                            random_tree(rng, depth - 1, small_exponents)))
    op = rng.choice("+-*/^^")
    left = random_tree(rng, depth - 1, small_exponents)
    if op == "^" and small_exponents:
        # keep values computable: the exponent is a small atom, possibly negated
        right = Num(rng.randint(1, 3)) if rng.random() < 0.6 else Var(rng.choice("xy"))
        if rng.random() < 0.3:
            right = Neg(right)
    else:
        right = random_tree(rng, depth - 1, small_exponents)
    return BinOp(op, left, right)


class RoundTrip(unittest.TestCase):
    def test_random_trees(self):
        rng = random.Random(4242)
        for _ in range(1500):
            tree = random_tree(rng, 5)
            text = to_string(tree)
            self.assertEqual(parse(text), tree, text)

    def test_matches_python(self):
        rng = random.Random(99)
        env = {"x": 2, "y": 3}
        checked = 0
        for _ in range(1500):
            text = to_string(random_tree(rng, 4, small_exponents=True))
            try:
                want = eval(text.replace("^", "**"), {"max": max}, dict(env))
            except (ZeroDivisionError, OverflowError, TypeError, ValueError):
                continue
            if isinstance(want, complex) or (isinstance(want, float) and not math.isfinite(want)):
                continue
            if isinstance(want, int) and abs(want) > 10 ** 50:
                continue
            try:
                got = evaluate(text, **env)
            except FormulaError:
                self.fail(f"FormulaError for {text}")
            self.assertTrue(got == want or math.isclose(got, want, rel_tol=1e-9), (text, got, want))
            checked += 1
        self.assertGreater(checked, 500)


class Regression(unittest.TestCase):
    def test_basics(self):
        self.assertEqual(parse("1 + 2 * 3"), BinOp("+", Num(1), BinOp("*", Num(2), Num(3))))
        self.assertEqual(evaluate("10 - 4 - 3"), 3)
        self.assertEqual(evaluate("64 / 4 / 2"), 8)
        self.assertEqual(evaluate("price * (1 + vat)", price=10, vat=0.5), 15)
        self.assertEqual(evaluate("2 ^ 10"), 1024)
        for bad in ["1 +", "(1", "1 2", "$", "2 ^", "- ", "^ 2"]:
            with self.assertRaises(FormulaError):
                parse(bad)
        with self.assertRaises(FormulaError):
            evaluate("1 / 0")


if __name__ == "__main__":
    unittest.main()
