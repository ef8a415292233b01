#!/usr/bin/env python3
"""Builds /app/notes-api (clone) and /app/origin.git: main moved on, feature/tags is messy
(fixup! commits and a merge of main)."""
import os
import subprocess
import sys

WHO = {"main": ("Rosa Diaz", "rosa@notes.example"), "feat": ("Sun Li", "sun@notes.example")}
REPO = None
N = [0]

ROUTES_HEAD = '''"""URL routing table: (method, path, handler name)."""

ROUTES = [
    ("GET", "/notes", "list_notes"),
    ("POST", "/notes", "create_note"),
'''
ROUTES_TAIL = ''']


def resolve(method, path):
    """Handler name for a request, or None."""
    for m, p, handler in ROUTES:
        if m == method and p == path:
            return handler
    return None
'''
ARCHIVE = '    ("POST", "/notes/archive", "archive_notes"),\n'
TAG_ROUTES = '    ("GET", "/tags", "list_tags"),\n    ("POST", "/notes/tags", "tag_note"),\n'
TAG_ROUTES_FIXED = TAG_ROUTES.replace('"list_tags"', '"list_all_tags"')
SEARCH = '    ("GET", "/notes/search", "search_notes"),\n'

TAGS_V1 = '''"""Tags attached to notes."""
import re

_VALID = re.compile(r"^[a-z0-9][a-z0-9-]{0,30}$")


def normalize_tag(raw):
    """'Work Items ' -> 'work-items'; ValueError for anything else."""
    tag = raw.strip().replace(" ", "-")
    if not _VALID.match(tag):
        raise ValueError(f"invalid tag: {raw!r}")
    return tag


class TagSet:
    def __init__(self, tags=()):
        self._tags = {normalize_tag(t) for t in tags}

    def add(self, raw):
        self._tags.add(normalize_tag(raw))

    def __contains__(self, raw):
        return normalize_tag(raw) in self._tags

    def sorted(self):
        return sorted(self._tags)
'''
TAGS_V2 = TAGS_V1.replace('tag = raw.strip().replace(" ", "-")', 'tag = raw.strip().lower().replace(" ", "-")')
TEST_TAGS_V1 = '''import unittest

from notes.tags import TagSet, normalize_tag


class TagTests(unittest.TestCase):
    def test_normalize(self):
        self.assertEqual(normalize_tag(" work items "), "work-items")

    def test_invalid(self):
        with self.assertRaises(ValueError):
            normalize_tag("no/slashes")

    def test_tagset(self):
        tags = TagSet(["a", "b"])
        tags.add("c")
        self.assertIn("b", tags)
        self.assertEqual(tags.sorted(), ["a", "b", "c"])
'''
TEST_TAGS_V2 = TEST_TAGS_V1 + '''
    def test_case_insensitive(self):
        self.assertEqual(normalize_tag("Work Items"), "work-items")
        self.assertIn("URGENT", TagSet(["urgent"]))
'''
TEST_ROUTES = '''import unittest

from notes.routes import resolve


class RouteTests(unittest.TestCase):
    def test_notes(self):
        self.assertEqual(resolve("GET", "/notes"), "list_notes")
        self.assertEqual(resolve("POST", "/notes"), "create_note")
        self.assertIsNone(resolve("DELETE", "/notes"))
'''
TEST_ROUTES_TAGS = TEST_ROUTES + '''
    def test_tags(self):
        self.assertEqual(resolve("GET", "/tags"), "{handler}")
        self.assertEqual(resolve("POST", "/notes/tags"), "tag_note")
'''
TEST_ARCHIVE = '''import unittest

from notes.routes import resolve


class ArchiveTests(unittest.TestCase):
    def test_archive(self):
        self.assertEqual(resolve("POST", "/notes/archive"), "archive_notes")
'''
SEARCH_PY = '''"""Searching notes by tag."""
from .tags import normalize_tag


def notes_with_tag(notes, raw_tag):
    """notes: iterable of (title, TagSet)."""
    tag = normalize_tag(raw_tag)
    return [title for title, tags in notes if tag in tags]
'''
TEST_SEARCH = '''import unittest

from notes.routes import resolve
from notes.search import notes_with_tag
from notes.tags import TagSet


class SearchTests(unittest.TestCase):
    def test_search(self):
        notes = [("a", TagSet(["x"])), ("b", TagSet(["y", "x"])), ("c", TagSet())]
        self.assertEqual(notes_with_tag(notes, "X"), ["a", "b"])

    def test_route(self):
        self.assertEqual(resolve("GET", "/notes/search"), "search_notes")
'''


def routes(*extra):
    return ROUTES_HEAD + "".join(extra) + ROUTES_TAIL


def git(*args, who="main", date=None, cwd=None):
    name, email = WHO[who]
    env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email,
               GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", *args], cwd=cwd or REPO, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stamp():
    N[0] += 1
    return f"2024-09-{N[0]:02d}T16:20:00+0200"


def commit(message, files, who="main"):
    for path, content in files.items():
        full = os.path.join(REPO, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as fh:
            fh.write(content)
    git("add", "-A")
    git("commit", "-q", "-m", message, who=who, date=stamp())


def main(root):
    global REPO
    REPO = os.path.join(root, "notes-api")
    origin = os.path.join(root, "origin.git")
    os.makedirs(REPO)
    git("init", "-q", "-b", "main")
    git("config", "user.name", "Sun Li")
    git("config", "user.email", "sun@notes.example")
    commit("notes-api 0.9.0", {"notes/__init__.py": '__version__ = "0.9.0"\n', "notes/routes.py": routes(),
                               "tests/__init__.py": "", "tests/test_routes.py": TEST_ROUTES,
                               "README.md": "# notes-api\n\nTests: `python3 -m unittest discover -s tests`\n",
                               ".gitignore": "__pycache__/\n"})
    git("branch", "feature/tags")
    git("checkout", "-q", "feature/tags")
    commit("Add Tag model", {"notes/tags.py": TAGS_V1, "tests/test_tags.py": TEST_TAGS_V1}, who="feat")
    commit("Add tag endpoints", {"notes/routes.py": routes(TAG_ROUTES),
                                 "tests/test_routes.py": TEST_ROUTES_TAGS.format(handler="list_tags")}, who="feat")
    commit("fixup! Add Tag model", {"notes/tags.py": TAGS_V2, "tests/test_tags.py": TEST_TAGS_V2}, who="feat")
    git("checkout", "-q", "main")
    commit("Add archive endpoint", {"notes/routes.py": routes(ARCHIVE), "tests/test_archive.py": TEST_ARCHIVE})
    commit("Docs: API overview", {"README.md": "# notes-api\n\nTests: `python3 -m unittest discover -s tests`\n\n"
                                                "Endpoints live in notes/routes.py.\n"})
    git("checkout", "-q", "feature/tags")
    # merge main into the feature branch, resolving the ROUTES conflict (main's route first)
    subprocess.run(["git", "merge", "-q", "main"], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(REPO, "notes/routes.py"), "w") as fh:
        fh.write(routes(ARCHIVE, TAG_ROUTES))
    git("add", "notes/routes.py")
    git("commit", "-q", "--no-edit", who="feat", date=stamp())
    commit("Add tag search", {"notes/search.py": SEARCH_PY, "tests/test_search.py": TEST_SEARCH,
                              "notes/routes.py": routes(ARCHIVE, TAG_ROUTES, SEARCH)}, who="feat")
    commit("fixup! Add tag endpoints", {"notes/routes.py": routes(ARCHIVE, TAG_ROUTES_FIXED, SEARCH),
                                        "tests/test_routes.py": TEST_ROUTES_TAGS.format(handler="list_all_tags")},
           who="feat")
    git("checkout", "-q", "main")
    commit("Bump version to 0.10.0", {"notes/__init__.py": '__version__ = "0.10.0"\n'})

    git("init", "-q", "--bare", origin, cwd=root)
    git("remote", "add", "origin", origin)
    git("push", "-q", "origin", "main", "feature/tags")
    git("fetch", "-q", "origin")
    git("branch", "-q", "--set-upstream-to=origin/main", "main")
    git("checkout", "-q", "feature/tags")
    git("branch", "-q", "--set-upstream-to=origin/feature/tags", "feature/tags")


if __name__ == "__main__":
    main(sys.argv[1])
