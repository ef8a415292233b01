#!/usr/bin/env python3
"""Builds /app/webshop (working clone) and /app/origin.git (its bare remote) deterministically."""
import os
import subprocess
import sys

ROOT = sys.argv[1]
REPO = os.path.join(ROOT, "webshop")
ORIGIN = os.path.join(ROOT, "origin.git")
N = [0]


def git(*args, cwd=REPO, date=None):
    env = dict(os.environ, GIT_AUTHOR_NAME="Lea Novak", GIT_AUTHOR_EMAIL="lea@webshop.example",
               GIT_COMMITTER_NAME="Lea Novak", GIT_COMMITTER_EMAIL="lea@webshop.example")
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def date():
    N[0] += 1
    return f"2024-05-{N[0]:02d}T11:00:00+0200"


def commit(message, files):
    for path, content in files.items():
        full = os.path.join(REPO, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as fh:
            fh.write(content)
    git("add", "-A")
    git("commit", "-q", "-m", message, date=date())


def changelog(unreleased):
    text = "# Changelog\n\n"
    if unreleased:
        text += "## Unreleased\n\n" + "".join(f"- {e}\n" for e in unreleased) + "\n"
    return text + "## 2.3.0 - 2024-04-02\n\n- Gift cards\n- Faster search\n"


os.makedirs(REPO)
git("init", "-q", "-b", "main")
git("config", "user.name", "Lea Novak")
git("config", "user.email", "lea@webshop.example")

entries = []
commit("webshop 2.3.0", {"VERSION": "2.3.0\n", "CHANGELOG.md": changelog(entries),
                         "README.md": "# webshop\n\nReleases: see RELEASING.md.\n",
                         "RELEASING.md": "1. branch release/X.Y off main\n2. bump VERSION, date the CHANGELOG\n3. tag vX.Y.Z\n",
                         "app/__init__.py": "", "app/search.py": "def search(q):\n    return []\n"})
git("tag", "-a", "v2.3.0", "-m", "webshop 2.3.0", date=date())
features = [
    ("Wishlist sharing (#201)", "Wishlist sharing", "app/wishlist.py", "def share(wishlist_id):\n    return f'/w/{wishlist_id}'\n"),
    ("Search: typo tolerance (#204)", "Typo tolerant search", "app/search.py", "def search(q, fuzzy=True):\n    return []\n"),
    ("Fix rounding in cart badge (#207)", "Fix cart badge rounding", "app/cart.py", "def badge(n):\n    return str(min(n, 99))\n"),
    ("Add CSV export (#212)", "CSV order export", "app/export.py", "import csv\n\n\ndef export(orders, fh):\n    csv.writer(fh).writerows(orders)\n"),
    ("Start new checkout flow (#220)", "New checkout flow (preview)", "app/checkout.py", "STEPS = ['address']\n"),
    ("Checkout flow: payment step (#223)", "Checkout payment step", "app/checkout.py", "STEPS = ['address', 'payment']\n"),
]
for message, entry, path, content in features:
    entries.append(entry)
    commit(message, {path: content, "CHANGELOG.md": changelog(entries)})

git("init", "-q", "--bare", ORIGIN, cwd=ROOT)
git("remote", "add", "origin", ORIGIN)
git("push", "-q", "-u", "origin", "main")
git("push", "-q", "origin", "v2.3.0")
