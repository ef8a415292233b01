#!/usr/bin/env python3
"""Builds /app/logship: main with a fix (LOG-231) and the older maint/1.x branch."""
import os
import subprocess
import sys

REPO = None
N = [0]
WHO = {"jo": ("Jo Almeida", "jo@logship.example"), "kai": ("Kai Brandt", "kai@logship.example")}

HEADER = '''"""Log file rotation: app.log -> app.log.1 -> app.log.2 ..."""
import re

_SUFFIX = re.compile(r"\\.(\\d+)$")

'''
PARSE_OLD = '''
def _parse_suffix(name, base):
    """Return the rotation index of *name* (app.log.3 -> 3) or None."""
    if not name.startswith(base + "."):
        return None
    m = _SUFFIX.search(name)
    return int(m.group(1)) if m else None
'''
PARSE_NEW = PARSE_OLD.replace("def _parse_suffix(", "def parse_index(")
NEXT_BUGGY = '''

def next_index(names, base):
    """Index the next rotated file of *base* should get."""
    indexes = [i for i in ({fn}(n, base) for n in names) if i is not None]
    return len(indexes)
'''
NEXT_FIXED = '''

def next_index(names, base):
    """Index the next rotated file of *base* should get (one past the highest)."""
    indexes = [i for i in ({fn}(n, base) for n in names) if i is not None]
    return max(indexes, default=0) + 1
'''
REST = '''

def rotated_name(base, index):
    return f"{{base}}.{{index}}"


def plan_rotation(names, base, keep):
    """(old, new) renames that shift every rotated file of *base* up by one and
    move *base* to .1; files that would exceed *keep* are deleted (new=None)."""
    indexes = sorted((i for i in ({fn}(n, base) for n in names) if i is not None), reverse=True)
    plan = []
    for i in indexes:
        plan.append((rotated_name(base, i), rotated_name(base, i + 1) if i + 1 <= keep else None))
    if base in names:
        plan.append((base, rotated_name(base, 1)))
    return plan
'''
GZIP = '''

def compressed_name(name):
    return name + ".gz"
'''
TESTS_BASE = '''import unittest

from logship.rotate import {fn}, next_index, plan_rotation


class RotateTests(unittest.TestCase):
    def test_parse(self):
        self.assertEqual({fn}("app.log.3", "app.log"), 3)
        self.assertIsNone({fn}("other.log.3", "app.log"))
        self.assertIsNone({fn}("app.log", "app.log"))

    def test_plan(self):
        plan = plan_rotation(["app.log", "app.log.1", "app.log.2"], "app.log", keep=2)
        self.assertEqual(plan, [("app.log.2", None), ("app.log.1", "app.log.2"), ("app.log", "app.log.1")])
'''
TEST_FIX = '''
    def test_next_index_first(self):
        self.assertEqual(next_index(["app.log"], "app.log"), 1)

    def test_next_index_after_existing(self):
        # LOG-231: with .1 and .2 present the next file must be .3, not .2
        self.assertEqual(next_index(["app.log", "app.log.1", "app.log.2"], "app.log"), 3)
        self.assertEqual(next_index(["app.log.1", "app.log.4"], "app.log"), 5)
'''
TESTS_TAIL = '''

if __name__ == "__main__":
    unittest.main()
'''


def rotate_py(fn, fixed, gzip=False):
    body = HEADER + (PARSE_NEW if fn == "parse_index" else PARSE_OLD)
    body += (NEXT_FIXED if fixed else NEXT_BUGGY).format(fn=fn) + REST.format(fn=fn)
    return body + (GZIP if gzip else "")


def tests_py(fn, fix=False, extra=""):
    return TESTS_BASE.format(fn=fn) + (TEST_FIX if fix else "") + extra + TESTS_TAIL


def git(*args, who="jo", date=None):
    name, email = WHO[who]
    env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email,
               GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", *args], cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL)


def commit(message, files, who="jo"):
    for path, content in files.items():
        full = os.path.join(REPO, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as fh:
            fh.write(content)
    N[0] += 1
    git("add", "-A")
    git("commit", "-q", "-m", message, who=who, date=f"2024-08-{N[0]:02d}T08:45:00+0200")


def main(path):
    global REPO
    REPO = path
    os.makedirs(REPO)
    git("init", "-q", "-b", "main")
    git("config", "user.name", "Jo Almeida")
    git("config", "user.email", "jo@logship.example")
    commit("logship 1.4.0", {"logship/__init__.py": '__version__ = "1.4.0"\n',
                             "logship/rotate.py": rotate_py("_parse_suffix", False),
                             "tests/__init__.py": "", "tests/test_rotate.py": tests_py("_parse_suffix"),
                             "README.md": "# logship\n\nShips and rotates application logs.\n",
                             ".gitignore": "__pycache__/\n"})
    git("tag", "-a", "v1.4.0", "-m", "logship 1.4.0")
    git("branch", "maint/1.x")
    commit("Compress rotated files", {"logship/rotate.py": rotate_py("_parse_suffix", False, gzip=True)}, who="kai")
    commit("Rename _parse_suffix to parse_index", {"logship/rotate.py": rotate_py("parse_index", False, gzip=True),
                                                   "tests/test_rotate.py": tests_py("parse_index")}, who="kai")
    commit("Fix off-by-one in rotation index (LOG-231)\n\nnext_index() counted the rotated files instead of looking at the\n"
           "highest index, so with app.log.1 and app.log.2 present it returned 2\nand the next rotation overwrote app.log.2.",
           {"logship/rotate.py": rotate_py("parse_index", True, gzip=True),
            "tests/test_rotate.py": tests_py("parse_index", fix=True)}, who="kai")
    commit("Docs: rotation", {"README.md": "# logship\n\nShips and rotates application logs.\n\n"
                                            "Rotation renames app.log to app.log.1 and shifts older files up.\n"})
    commit("Bump version to 2.0.0.dev0", {"logship/__init__.py": '__version__ = "2.0.0.dev0"\n'})

    git("checkout", "-q", "maint/1.x")
    commit("Release 1.4.1", {"logship/__init__.py": '__version__ = "1.4.1"\n'})
    commit("Maint: document supported Python versions", {"README.md": "# logship\n\nShips and rotates application logs.\n\n"
                                                                      "1.x supports Python 3.8+.\n"})
    git("checkout", "-q", "main")


if __name__ == "__main__":
    main(sys.argv[1])
