"""Tokenizer."""
import re
from dataclasses import dataclass

from .errors import FormulaError

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<name>[A-Za-z_]\w*)|(?P<op>[-+*/^(),]))")


@dataclass(frozen=True)
class Token:
    kind: str      # "num", "name", "op" or "end"
    value: str
    pos: int


def tokenize(text):
    tokens = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            tokens.append(Token("end", "", pos))
            return tokens
        m = _TOKEN.match(text, pos)
        if not m:
            raise FormulaError(f"unexpected character {text[pos]!r}", pos)
        kind = m.lastgroup
        tokens.append(Token(kind, m.group(kind), m.start(kind)))
        pos = m.end()
