"""Which shell command batches only read: the *inspection* of the signals (:mod:`.signals`).

A batch is split into simple commands (at ``;``, ``&``, ``|``, newlines and parentheses); it is an
inspection when every one of them runs a read-only program (or a read-only subcommand, or a test runner)
and nothing is redirected into a file. Unknown programs and unparseable batches are *state-changing*,
the conservative side.
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache

READ_ONLY = frozenset({
    "cat", "ls", "head", "tail", "grep", "egrep", "fgrep", "rg", "find", "sed", "wc", "diff", "cmp", "stat", "file",
    "du", "df", "pwd", "echo", "printf", "test", "[", "which", "type", "id", "whoami", "date", "tree", "less", "more",
    "sort", "uniq", "cut", "awk", "jq", "md5sum", "sha1sum", "sha256sum", "xxd", "od", "hexdump", "readlink",
    "realpath", "basename", "dirname", "ps", "pgrep", "ldd", "nm", "objdump", "readelf", "true", "cd", "clear",
    "sleep", "pytest", "ctest", "column", "nl", "comm", "tac", "strings"})
READ_ONLY_SUBCOMMANDS = {
    "git": {"status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "describe", "grep"},
    "make": {"test", "check", "-n"}, "npm": {"test"}, "cargo": {"test", "check"}, "go": {"test", "vet"},
}
#: Flags (prefixes) that make an otherwise read-only program write.
WRITING_FLAGS = {"find": ("-delete", "-exec", "-ok", "-fprint"), "sed": ("-i", "--in-place"), "sort": ("-o",)}
PREFIXES = {"sudo", "env", "time", "nohup", "command", "builtin"}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _simple_commands(keys: str) -> list[list[str]] | None:
    """Shell words per simple command (split at ; & | newlines and parentheses); None if unparseable."""
    lexer = shlex.shlex(keys, posix=True, punctuation_chars="();<>|&\n")
    lexer.whitespace, lexer.whitespace_split = " \t\r", True
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    commands, current = [], []
    for token in tokens:
        if set(token) <= set(";&|\n()"):
            commands.append(current)
            current = []
        else:
            current.append(token)
    return [c for c in commands + [current] if c]


def _writes(words: list[str]) -> bool:
    """Output redirection to a file (``>``/``>>``, not to /dev/null, not an fd duplication)."""
    for i, word in enumerate(words):
        redirect = ">" in word and set(word) <= set("<>&") and not word.endswith("&")
        if redirect and (i + 1 >= len(words) or words[i + 1] != "/dev/null"):
            return True
    return False


def _reads_only(words: list[str]) -> bool:
    words = [w for w in words if not ASSIGNMENT.match(w)]
    while words and words[0] in PREFIXES:
        words = words[1:]
    if not words or _writes(words):
        return not words
    program, args = words[0].rsplit("/", 1)[-1], words[1:]
    if any(a.startswith(flag) for flag in WRITING_FLAGS.get(program, ()) for a in args):
        return False
    if program in READ_ONLY:
        return True
    if program.startswith("python") and args[:2] == ["-m", "pytest"]:
        return True
    sub = next((a for a in args if not a.startswith("-")), None) if program != "make" else (args or [None])[0]
    return sub in READ_ONLY_SUBCOMMANDS.get(program, set())


@lru_cache(maxsize=4096)
def is_inspection(keys: str) -> bool:
    """True when every simple command of a non-empty batch only reads (programs in ``READ_ONLY``, a
    read-only git subcommand, a test runner) and nothing is redirected into a file."""
    commands = _simple_commands(keys) if keys.strip() else None
    return bool(commands) and all(_reads_only(c) for c in commands)
