"""Precedence-climbing parser.

Grammar (lowest to highest binding): + -, * /, unary -, ^, calls/atoms.
"""
from .errors import FormulaError
from .nodes import BinOp, Call, Neg, Num, Var
from .tokens import tokenize

BINARY = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}


class _Parser:
    def __init__(self, text):
        self.tokens = tokenize(text)
        self.i = 0

    @property
    def tok(self):
        return self.tokens[self.i]

    def take(self, value=None):
        tok = self.tok
        if value is not None and tok.value != value:
            raise FormulaError(f"expected {value!r}, got {tok.value or 'end of input'!r}", tok.pos)
        self.i += 1
        return tok

    def expression(self, min_prec=1):
        left = self.unary()
        while self.tok.kind == "op" and self.tok.value in BINARY and BINARY[self.tok.value] >= min_prec:
            op = self.take().value
            right = self.expression(BINARY[op] + 1)
            left = BinOp(op, left, right)
        return left

    def unary(self):
        if self.tok.kind == "op" and self.tok.value == "-":
            self.take()
            return Neg(self.unary())
        if self.tok.kind == "op" and self.tok.value == "+":
            self.take()
            return self.unary()
        return self.primary()

    def primary(self):
        tok = self.take()
        if tok.kind == "num":
            return Num(float(tok.value) if "." in tok.value else int(tok.value))
        if tok.kind == "name":
            if self.tok.value == "(":
                self.take("(")
                args = []
                if self.tok.value != ")":
                    args.append(self.expression())
                    while self.tok.value == ",":
                        self.take(",")
                        args.append(self.expression())
                self.take(")")
                return Call(tok.value, tuple(args))
            return Var(tok.value)
        if tok.value == "(":
            node = self.expression()
            self.take(")")
            return node
        raise FormulaError(f"unexpected {tok.value or 'end of input'!r}", tok.pos)


def parse(text):
    """Parse *text* into a syntax tree."""
    p = _Parser(text)
    node = p.expression()
    if p.tok.kind != "end":
        raise FormulaError(f"unexpected {p.tok.value!r}", p.tok.pos)
    return node
