#!/usr/bin/env python3
"""Builds the shopcart history deterministically (fixed dates and identities)."""
import os
import subprocess
import sys

REPO = sys.argv[1]

BASE = '''"""Cart arithmetic for the shop backend."""
from decimal import Decimal, ROUND_HALF_UP

VAT_RATES = {"standard": Decimal("0.20"), "reduced": Decimal("0.05"), "zero": Decimal("0")}
CENT = Decimal("0.01")


def _money(value):
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


def line_total(unit_price, qty, vat="standard"):
    """Gross total of one cart line, VAT rounded to the cent."""
    net = Decimal(str(unit_price)) * qty
{vat_line}
    return _money(net + vat_amount)


def cart_total(lines):
    return sum((line_total(*line) for line in lines), Decimal("0.00"))
'''
GOOD_VAT = "    vat_amount = (net * VAT_RATES[vat]).quantize(CENT, rounding=ROUND_HALF_UP)"
BAD_VAT = "    vat_amount = Decimal(str(round(float(net * VAT_RATES[vat]), 2)))"

EXTRAS = {
    "format": '''

def format_price(amount, currency="EUR"):
    return f"{_money(amount):.2f} {currency}"
''',
    "split_wip": '''

def split_cart(lines, max_items:
    # WIP: split big carts into several parcels
''',
    "split": '''

def split_cart(lines, max_items=20):
    """Split cart lines into parcels of at most max_items items."""
    parcels, current, count = [], [], 0
    for line in lines:
        if count + line[1] > max_items and current:
            parcels.append(current)
            current, count = [], 0
        current.append(line)
        count += line[1]
    if current:
        parcels.append(current)
    return parcels
''',
    "weight": '''

def total_weight(lines, weights):
    return sum(weights.get(sku, 0) * qty for sku, qty in lines)
''',
}

state = {"vat": GOOD_VAT, "extras": []}


def cart_py():
    text = BASE.replace("{vat_line}", state["vat"])
    for name in state["extras"]:
        text += EXTRAS[name]
    return text


def readme(section=""):
    return "# shopcart\n\nCart arithmetic, shipping and coupons for the shop backend.\n" + section


N = [0]


def git(*args, date=None):
    env = dict(os.environ)
    env.update(GIT_AUTHOR_NAME="Mara Lindqvist", GIT_AUTHOR_EMAIL="mara@shop.example",
               GIT_COMMITTER_NAME="Mara Lindqvist", GIT_COMMITTER_EMAIL="mara@shop.example")
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", *args], cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL)


def commit(message, files):
    for path, content in files.items():
        full = os.path.join(REPO, path)
        if content is None:
            os.remove(full)
            continue
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as fh:
            fh.write(content)
    N[0] += 1
    day, hour = divmod(N[0], 2)
    date = f"2024-03-{1 + day:02d}T{10 + 4 * hour:02d}:15:00+0100"
    git("add", "-A")
    git("commit", "-q", "-m", message, date=date)
    return date


os.makedirs(REPO, exist_ok=True)
git("init", "-q", "-b", "main")
git("config", "user.name", "Dev")
git("config", "user.email", "dev@shop.example")

shipping = ['"""Shipping costs."""\n\nFLAT_RATE = 4.90\n', 'FREE_ABOVE = 60\n']
coupons = ['"""Coupon codes."""\n\nCODES = {"WELCOME10": 10}\n']

commit("Initial import of shopcart", {"cart.py": cart_py(), "README.md": readme(),
                                     "shipping.py": "".join(shipping[:1]), "coupons.py": coupons[0]})
commit("Add free shipping threshold", {"shipping.py": "".join(shipping)})
commit("Document VAT rates in README", {"README.md": readme("\n## VAT\n\nstandard 20 %, reduced 5 %, zero.\n")})
state["extras"].append("format")
commit("Add format_price helper", {"cart.py": cart_py()})
commit("Add SPRING24 coupon", {"coupons.py": coupons[0].replace("}", ', "SPRING24": 15}')})
commit("Add .gitignore", {".gitignore": "__pycache__/\n*.pyc\n"})
git("tag", "-a", "v1.4.0", "-m", "shopcart 1.4.0", date="2024-03-04T18:00:00+0100")
commit("Express shipping rate", {"shipping.py": "".join(shipping) + "EXPRESS_RATE = 9.90\n"})
commit("README: shipping section", {"README.md": readme("\n## VAT\n\nstandard 20 %, reduced 5 %, zero.\n\n## Shipping\n\nFlat rate, free above 60 EUR.\n")})
commit("Coupons: case-insensitive lookup", {"coupons.py": coupons[0].replace("}", ', "SPRING24": 15}') + "\n\ndef lookup(code):\n    return CODES.get(code.upper())\n"})
commit("Add CHANGELOG", {"CHANGELOG.md": "# Changelog\n\n## 1.4.0\n\n- format_price\n"})
commit("Shipping: island surcharge", {"shipping.py": "".join(shipping) + "EXPRESS_RATE = 9.90\nISLAND_SURCHARGE = 7.50\n"})
commit("Typo fixes in README", {"README.md": readme("\n## VAT\n\nStandard 20 %, reduced 5 %, zero.\n\n## Shipping\n\nFlat rate, free above 60 EUR.\n")})
commit("Coupons: SUMMER24", {"coupons.py": coupons[0].replace("}", ', "SPRING24": 15, "SUMMER24": 12}') + "\n\ndef lookup(code):\n    return CODES.get(code.upper())\n"})
commit("Shipping: weight based rates", {"shipping.py": "".join(shipping) + "EXPRESS_RATE = 9.90\nISLAND_SURCHARGE = 7.50\nPER_KG = 0.80\n"})
state["extras"].append("split_wip")
commit("WIP: start split_cart", {"cart.py": cart_py()})
commit("WIP: split_cart notes", {"NOTES.md": "split_cart: parcels of at most 20 items\n"})
commit("WIP: more split_cart notes", {"NOTES.md": "split_cart: parcels of at most 20 items\nheavy items go alone\n"})
commit("WIP: split_cart parcels by weight", {"NOTES.md": "split_cart: parcels of at most 20 items\nheavy items go alone\nmaybe split by weight instead?\n"})
state["extras"][-1] = "split"
commit("Finish split_cart", {"cart.py": cart_py()})
commit("Remove NOTES.md", {"NOTES.md": None})
commit("README: coupons section", {"README.md": readme("\n## VAT\n\nStandard 20 %, reduced 5 %, zero.\n\n## Shipping\n\nFlat rate, free above 60 EUR.\n\n## Coupons\n\nSee coupons.py.\n")})
state["vat"] = BAD_VAT
commit("Use built-in round() for VAT amounts", {"cart.py": cart_py()})
commit("CHANGELOG: split_cart", {"CHANGELOG.md": "# Changelog\n\n## Unreleased\n\n- split_cart\n\n## 1.4.0\n\n- format_price\n"})
state["extras"].append("weight")
commit("Add total_weight", {"cart.py": cart_py()})
commit("Coupons: expire SPRING24", {"coupons.py": coupons[0].replace("}", ', "SUMMER24": 12}') + "\n\ndef lookup(code):\n    return CODES.get(code.upper())\n"})
commit("Bump express rate", {"shipping.py": "".join(shipping) + "EXPRESS_RATE = 11.90\nISLAND_SURCHARGE = 7.50\nPER_KG = 0.80\n"})
commit("CHANGELOG: total_weight", {"CHANGELOG.md": "# Changelog\n\n## Unreleased\n\n- split_cart\n- total_weight\n\n## 1.4.0\n\n- format_price\n"})
commit("Shipping: document constants", {"shipping.py": '"""Shipping costs (EUR)."""\n\nFLAT_RATE = 4.90\nFREE_ABOVE = 60\nEXPRESS_RATE = 11.90\nISLAND_SURCHARGE = 7.50\nPER_KG = 0.80\n'})
commit("Coupons: reject empty codes", {"coupons.py": coupons[0].replace("}", ', "SUMMER24": 12}') + "\n\ndef lookup(code):\n    if not code:\n        return None\n    return CODES.get(code.upper())\n"})
commit("README: release process", {"README.md": readme("\n## VAT\n\nStandard 20 %, reduced 5 %, zero.\n\n## Shipping\n\nFlat rate, free above 60 EUR.\n\n## Coupons\n\nSee coupons.py.\n\n## Releasing\n\nTag vX.Y.Z on main.\n")})
