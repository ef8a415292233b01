"""Syntax highlighting of unified diffs whose files are Python (or JSON), as escaped HTML spans.

Each diff line becomes one ``<span class="ln …">``: ``hd`` for file headers, ``hk`` for hunk headers,
``add`` / ``del`` / ``ctx`` for changed and context lines. Inside ``.py`` files the code part is split
into tokens by a small line-based lexer (keywords, builtins, strings, comments, numbers, decorators,
definitions), carrying triple-quoted strings across lines of the same side. Everything is escaped:
the output is safe to inline whatever the diff holds.
"""

from __future__ import annotations

import builtins
import html
import keyword
import re

KEYWORDS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_"))
TOKEN = re.compile(r"""
    (?P<comment>\#.*)
  | (?P<string>[rbfuRBFU]{0,2}(?:'''|\"\"\"|'(?:\\.|[^'\\])*'?|"(?:\\.|[^"\\])*"?))
  | (?P<number>\b(?:0[xob][0-9a-fA-F_]+|\d[\d_]*\.?\d*(?:[eE][+-]?\d+)?j?)\b)
  | (?P<decorator>^\s*@[\w.]+)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<other>\s+|.)
""", re.VERBOSE)


def _span(cls: str, text: str) -> str:
    return f'<span class="{cls}">{html.escape(text)}</span>' if text else ""


class PythonLexer:
    """Highlights Python one line at a time; remembers an open triple-quoted string between lines."""

    def __init__(self) -> None:
        self.open: str | None = None

    def line(self, text: str) -> str:
        out: list[str] = []
        pos = 0
        if self.open:
            end = text.find(self.open)
            if end < 0:
                return _span("s", text)
            out.append(_span("s", text[: end + 3]))
            pos, self.open = end + 3, None
        after_def = False
        for match in TOKEN.finditer(text, pos):
            kind, value = match.lastgroup, match.group()
            if kind == "string" and value.lstrip("rbfuRBFU") in ("'''", '"""'):
                quote = value.lstrip("rbfuRBFU")
                end = text.find(quote, match.end())
                if end < 0:
                    self.open = quote
                    out.append(_span("s", text[match.start():]))
                    return "".join(out)
                out.append(_span("s", text[match.start(): end + 3]))
                return "".join(out) + self.line_rest(text, end + 3)
            out.append(self._token(kind, value, after_def))
            if kind == "name":
                after_def = value in ("def", "class")
        return "".join(out)

    def line_rest(self, text: str, pos: int) -> str:
        return self.line(text[pos:]) if pos < len(text) else ""

    @staticmethod
    def _token(kind: str | None, value: str, after_def: bool) -> str:
        if kind == "comment":
            return _span("c", value)
        if kind == "string":
            return _span("s", value)
        if kind == "number":
            return _span("n", value)
        if kind == "decorator":
            return _span("d", value)
        if kind == "name":
            if after_def:
                return _span("f", value)
            if value in KEYWORDS:
                return _span("k", value)
            if value in BUILTINS:
                return _span("b", value)
        return html.escape(value)


def highlight_diff(diff: str) -> str:
    """The diff as highlighted HTML lines (join them inside a ``<pre>``)."""
    lines: list[str] = []
    python = False
    lexers = {"-": PythonLexer(), "+": PythonLexer()}
    for raw in diff.splitlines():
        if raw.startswith(("--- ", "+++ ", "diff ", "index ")):
            if raw.startswith("+++ "):
                python = raw.rstrip().endswith(".py")
                lexers = {"-": PythonLexer(), "+": PythonLexer()}
            lines.append(f'<span class="ln hd">{html.escape(raw)}</span>')
        elif raw.startswith("@@"):
            lines.append(f'<span class="ln hk">{html.escape(raw)}</span>')
        else:
            mark, code = (raw[:1], raw[1:]) if raw[:1] in ("+", "-", " ") else (" ", raw)
            cls = {"+": "add", "-": "del"}.get(mark, "ctx")
            if python:
                sides = [lexers[mark]] if mark in lexers else list(lexers.values())
                body = sides[0].line(code)
                for other in sides[1:]:
                    other.line(code)
            else:
                body = html.escape(code)
            lines.append(f'<span class="ln {cls}"><span class="mk">{html.escape(mark)}</span>{body}</span>')
    return "".join(lines)  # each line is a block: no newline between them
