"""Python source an editor wrote inside a JSON string, read the one way it can compile.

A model writing ``"content": "...print('a\\nb')..."`` means Python's ``\\n`` escape, but JSON decodes it
into a line break, so the file holds a one-line string literal broken across lines: a syntax error
("unterminated string literal") whatever else is right. Small models do this on most files that print a
message. A line break inside a one-line (``'`` or ``"``) literal is never valid Python, so turning each
such break back into ``\\n`` has exactly one reading; nothing else is touched (triple-quoted strings,
comments and code are copied as they are). :func:`escape_raw_newlines` is applied only to a file that does
not parse, and its result is kept only when it parses - the file then goes through every check as written.
:func:`same_code` tells an edit of comments, docstrings or layout alone from one that changes the code.
"""

from __future__ import annotations

import ast

_TRIPLES = ('"""', "'''")


def _string_end(source: str, start: int, quote: str) -> int:
    """The index just past the literal whose opening ``quote`` (1 or 3 characters) is at ``start``; a
    one-line literal may run over line breaks here (that is what is being repaired)."""
    i, n = start + len(quote), len(source)
    while i < n:
        if source[i] == "\\":
            i += 2
        elif source.startswith(quote, i):
            return i + len(quote)
        else:
            i += 1
    return n


def _escaped(literal: str) -> str:
    """A one-line literal with its bare line breaks as ``\\n`` (a backslash-newline continues it: kept)."""
    out, i = [], 0
    while i < len(literal):
        if literal[i] == "\\":
            out.append(literal[i:i + 2])
            i += 2
            continue
        out.append("\\n" if literal[i] == "\n" else "" if literal.startswith("\r\n", i) else literal[i])
        i += 1
    return "".join(out)


def escape_raw_newlines(source: str) -> str:
    """``source`` with every line break inside a one-line string literal written as ``\\n``."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        char = source[i]
        if char == "#":
            end = source.find("\n", i)
            end = n if end < 0 else end
        elif source.startswith(_TRIPLES, i):
            end = _string_end(source, i, source[i:i + 3])
        elif char in "'\"":
            end = _string_end(source, i, char)
            out.append(_escaped(source[i:end]))
            i = end
            continue
        else:
            end = i + 1
        out.append(source[i:end])
        i = end
    return "".join(out)


def parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True


def same_code(a: str, b: str) -> bool:
    """Whether two sources differ in comments, docstrings and layout at most (the same syntax tree once
    docstrings are dropped - a function file cannot read its own; never for a source that does not parse)."""
    try:
        return _code(a) == _code(b)
    except (SyntaxError, ValueError):
        return False


def _code(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and body and \
                isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
                isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


def repaired(source: str) -> str | None:
    """The source with its one-line literals' line breaks escaped, when that is what makes it parse."""
    if parses(source):
        return None
    fixed = escape_raw_newlines(source)
    return fixed if fixed != source and parses(fixed) else None
