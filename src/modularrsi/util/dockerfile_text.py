"""A Dockerfile's text as instructions: continuations joined, comments dropped, heredocs kept whole.

Each :class:`Instruction` is one keyword and its arguments, with the 1-based line it starts on. BuildKit's
heredocs (``RUN <<EOF``, ``RUN <<'EOF' bash``, ``RUN python3 <<-PY``, ``COPY <<EOF /file``) belong to the
instruction that opens them: their bodies are read here, line for line, and never as instructions.
What an instruction *means* is the reader's business (:mod:`modularrsi.sandbox.dockerfile` plans it for
LocalSandbox, :mod:`modularrsi.engines.task_images` collects the images it names).

Invariants: a heredoc opens only on RUN, COPY and ADD, with its delimiter written right after ``<<``
(``<<EOF``, ``<<-EOF``, ``<<'EOF'``, ``<<"EOF"``), outside quotes, as BuildKit reads it; bodies are kept
verbatim (each line with its newline), except that ``<<-`` strips leading tabs; a heredoc never closed
is reported in :attr:`Instruction.unclosed`, and the rest of the file is its body, as in a shell.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

HEREDOC_KEYWORDS = ("RUN", "COPY", "ADD")
_OPENER = re.compile(r"^\d*<<(?P<chomp>-?)(?P<quote>[\"']?)(?P<name>[A-Za-z_][\w.-]*)(?P=quote)(?P<tail>.*)$")


@dataclass(frozen=True)
class Heredoc:
    """One here-document: its delimiter, its body (verbatim lines), and how it was opened."""

    name: str
    body: str
    quoted: bool = False  # <<'EOF' or <<"EOF": BuildKit expands no variables in it
    chomp: bool = False  # <<-EOF: leading tabs removed from the body (and the closing line)
    token: str = ""  # the opening word as written (<<'EOF')


@dataclass(frozen=True)
class Instruction:
    """One instruction: ``keyword`` upper-cased, ``rest`` its arguments (continuations joined)."""

    line: int
    keyword: str
    rest: str
    heredocs: tuple[Heredoc, ...] = ()
    unclosed: str = ""  # the delimiter of a heredoc the file never closes


def instructions(text: str) -> list[Instruction]:
    """Every instruction of a Dockerfile's ``text``, in order."""
    lines = text.splitlines()
    out: list[Instruction] = []
    index = 0
    while index < len(lines):
        start, joined, index = _logical_line(lines, index)
        if joined is None:
            continue
        keyword, _, rest = joined.partition(" ")
        keyword, rest = keyword.upper(), rest.strip()
        openers = heredoc_openers(rest) if keyword in HEREDOC_KEYWORDS else []
        heredocs, unclosed = [], ""
        for token, name, chomp, quoted in openers:
            body, index, closed = _read_body(lines, index, name, chomp)
            heredocs.append(Heredoc(name, body, quoted, chomp, token))
            unclosed = unclosed or ("" if closed else name)
        out.append(Instruction(start, keyword, rest, tuple(heredocs), unclosed))
    return out


def _logical_line(lines: list[str], index: int) -> tuple[int, str | None, int]:
    """The logical line starting at ``index``: (its 1-based line, its text or None for a blank or a
    comment, the index after it). Backslash continuations are joined; comment lines inside them dropped."""
    stripped = lines[index].strip()
    if not stripped or stripped.startswith("#"):
        return index + 1, None, index + 1
    start, buffer = index + 1, ""
    while index < len(lines):
        stripped = lines[index].strip()
        index += 1
        if buffer and stripped.startswith("#"):
            continue
        if not stripped.endswith("\\"):
            return start, buffer + stripped, index
        buffer += stripped[:-1] + " "
    return start, buffer.strip(), index


def heredoc_openers(rest: str) -> list[tuple[str, str, bool, bool]]:
    """``(token, name, chomp, quoted)`` for each heredoc an instruction's arguments open."""
    try:
        words = shlex.split(rest, posix=False)
    except ValueError:
        words = rest.split()
    found = []
    for word in words:
        match = _OPENER.match(word)
        if match and not match["tail"].startswith("<"):
            token = word[: len(word) - len(match["tail"])]
            found.append((token, match["name"], bool(match["chomp"]), bool(match["quote"])))
    return found


def _read_body(lines: list[str], index: int, name: str, chomp: bool) -> tuple[str, int, bool]:
    """The body from ``index`` to the line ``name``: (body, the index after the closing line, closed)."""
    body = []
    while index < len(lines):
        line = lines[index].lstrip("\t") if chomp else lines[index]
        index += 1
        if line == name:
            return "".join(body), index, True
        body.append(line + "\n")
    return "".join(body), index, False
