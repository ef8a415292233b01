#!/usr/bin/env python3
"""Builds /app/catalog-service with diverged main and feature/bulk-pricing branches."""
import os
import subprocess
import sys

REPO = None
N = [0]
WHO = {"main": ("Ivo Petrov", "ivo@catalog.example"), "feat": ("Sun Li", "sun@catalog.example")}


def git(*args, who="main", date=None):
    name, email = WHO[who]
    env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email,
               GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", *args], cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL)


def commit(message, files, who="main"):
    for path, content in files.items():
        full = os.path.join(REPO, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as fh:
            fh.write(content)
    N[0] += 1
    git("add", "-A")
    git("commit", "-q", "-m", message, who=who, date=f"2024-07-{N[0]:02d}T14:00:00+0000")


PRICING_BASE = '''"""Price calculations."""
from decimal import Decimal, ROUND_HALF_UP

CENT = Decimal("0.01")


def round_price(value):
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def apply_discount(price, pct):
    """Return price reduced by pct percent."""
    price = Decimal(str(price))
    return round_price(price * (100 - Decimal(pct)) / 100)
'''
PRICING_MAIN = PRICING_BASE.replace('    """Return price reduced by pct percent."""',
                                    '    """Return *price* reduced by *pct* percent (0-100)."""')
PRICING_FEAT = '''"""Price calculations, including bulk tiers."""
from decimal import Decimal, ROUND_HALF_UP

CENT = Decimal("0.01")
BULK_TIERS = [(100, 10), (20, 5)]   # (minimum quantity, extra percent off)


def round_price(value):
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def bulk_discount(qty):
    """Extra percent off for ordering *qty* units."""
    for min_qty, pct in BULK_TIERS:
        if qty >= min_qty:
            return pct
    return 0


def apply_price_rule(price, pct, qty=1):
    """Unit price after the order discount *pct* and the bulk tier for *qty*."""
    price = Decimal(str(price))
    total_pct = Decimal(pct) + bulk_discount(qty)
    return round_price(price * (100 - total_pct) / 100)
'''
ORDERS_BASE = '''"""Order totals."""
from decimal import Decimal

from .pricing import apply_discount


def order_total(lines, discount_pct=0):
    """lines: iterable of (unit_price, qty)."""
    total = Decimal("0.00")
    for price, qty in lines:
        total += apply_discount(price, discount_pct) * qty
    return total
'''
INVOICE = '''

def invoice_lines(lines, discount_pct=0):
    """Printable invoice rows: (qty, unit price after discounts, line total)."""
    rows = []
    for price, qty in lines:
        unit = apply_discount(price, discount_pct)
        rows.append((qty, unit, unit * qty))
    return rows
'''
ORDERS_FEAT = ORDERS_BASE.replace("import apply_discount", "import apply_price_rule").replace(
    "apply_discount(price, discount_pct) * qty", "apply_price_rule(price, discount_pct, qty) * qty")
TEST_PRICING_BASE = '''import unittest
from decimal import Decimal

from catalog.pricing import apply_discount, round_price


class PricingTests(unittest.TestCase):
    def test_round(self):
        self.assertEqual(round_price(Decimal("1.005")), Decimal("1.01"))

    def test_discount(self):
        self.assertEqual(apply_discount("10.00", 15), Decimal("8.50"))


if __name__ == "__main__":
    unittest.main()
'''
TEST_PRICING_FEAT = '''import unittest
from decimal import Decimal

from catalog.pricing import apply_price_rule, bulk_discount, round_price


class PricingTests(unittest.TestCase):
    def test_round(self):
        self.assertEqual(round_price(Decimal("1.005")), Decimal("1.01"))

    def test_discount(self):
        self.assertEqual(apply_price_rule("10.00", 15), Decimal("8.50"))

    def test_bulk(self):
        self.assertEqual(bulk_discount(19), 0)
        self.assertEqual(bulk_discount(20), 5)
        self.assertEqual(apply_price_rule("10.00", 0, qty=150), Decimal("9.00"))


if __name__ == "__main__":
    unittest.main()
'''
TEST_ORDERS_BASE = '''import unittest
from decimal import Decimal

from catalog.orders import order_total


class OrderTests(unittest.TestCase):
    def test_total(self):
        self.assertEqual(order_total([("2.50", 4), ("1.00", 1)], 10), Decimal("9.90"))
'''
TEST_ORDERS_MAIN = TEST_ORDERS_BASE.replace("import order_total", "import invoice_lines, order_total") + '''
    def test_invoice_lines(self):
        rows = invoice_lines([("2.50", 4), ("1.00", 1)], 10)
        self.assertEqual(rows, [(4, Decimal("2.25"), Decimal("9.00")), (1, Decimal("0.90"), Decimal("0.90"))])
'''
MAIN_SUFFIX = '''

if __name__ == "__main__":
    unittest.main()
'''
CONFIG_BASE = "[http]\ntimeout = 20\nretries = 2\n\n[cache]\nttl = 300\n"
FEED = "\n[feed]\nurl = http://prices.internal/feed\ninterval = 600\n"


def changelog(entries):
    return "# Changelog\n\n## Unreleased\n\n" + "".join(f"- {e}\n" for e in entries) + \
        ("\n" if entries else "") + "## 1.2.0\n\n- Product search\n"


def main(path):
    global REPO
    REPO = path
    os.makedirs(REPO)
    git("init", "-q", "-b", "main")
    git("config", "user.name", "Ivo Petrov")
    git("config", "user.email", "ivo@catalog.example")
    commit("catalog-service 1.2.0", {
        "catalog/__init__.py": "", "catalog/pricing.py": PRICING_BASE, "catalog/orders.py": ORDERS_BASE,
        "tests/__init__.py": "", "tests/test_pricing.py": TEST_PRICING_BASE,
        "tests/test_orders.py": TEST_ORDERS_BASE + MAIN_SUFFIX,
        "config/defaults.ini": CONFIG_BASE, "CHANGELOG.md": changelog([]),
        "README.md": "# catalog-service\n\nRun the tests: `python3 -m unittest discover -s tests`\n",
        ".gitignore": "__pycache__/\n"})
    git("branch", "feature/bulk-pricing")

    git("checkout", "-q", "feature/bulk-pricing")
    commit("Rename apply_discount to apply_price_rule, add bulk tiers", {
        "catalog/pricing.py": PRICING_FEAT, "catalog/orders.py": ORDERS_FEAT,
        "tests/test_pricing.py": TEST_PRICING_FEAT, "CHANGELOG.md": changelog(["Bulk pricing tiers"])}, who="feat")
    commit("Price feed: 45 s timeout and feed settings", {
        "config/defaults.ini": CONFIG_BASE.replace("timeout = 20", "timeout = 45") + FEED,
        "CHANGELOG.md": changelog(["Bulk pricing tiers", "Price feed timeout 45 s"])}, who="feat")

    git("checkout", "-q", "main")
    commit("Raise HTTP timeout to 30 s", {
        "config/defaults.ini": CONFIG_BASE.replace("timeout = 20", "timeout = 30"),
        "CHANGELOG.md": changelog(["HTTP timeout raised to 30 s"])})
    commit("Add invoice lines", {
        "catalog/orders.py": ORDERS_BASE + INVOICE, "tests/test_orders.py": TEST_ORDERS_MAIN + MAIN_SUFFIX,
        "CHANGELOG.md": changelog(["HTTP timeout raised to 30 s", "Invoice lines"])})
    commit("pricing: clarify apply_discount docstring", {"catalog/pricing.py": PRICING_MAIN})


if __name__ == "__main__":
    main(sys.argv[1])
