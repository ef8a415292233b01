"""Turning syntax trees back into formula text with as few parentheses as possible."""
from .nodes import BinOp, Call, Neg, Num, Var
from .parser import BINARY, parse


def _wrap(child, parent_prec, is_right):
    text = to_string(child)
    if isinstance(child, BinOp):
        prec = BINARY[child.op]
        if prec < parent_prec or (is_right and prec == parent_prec):
            return f"({text})"
    return text


def to_string(node):
    if isinstance(node, Num):
        return repr(node.value)
    if isinstance(node, Var):
        return node.name
    if isinstance(node, Call):
        return f"{node.name}({', '.join(to_string(a) for a in node.args)})"
    if isinstance(node, Neg):
        inner = to_string(node.operand)
        if isinstance(node.operand, BinOp):
            inner = f"({inner})"
        return "-" + inner
    if isinstance(node, BinOp):
        prec = BINARY[node.op]
        return f"{_wrap(node.left, prec, False)} {node.op} {_wrap(node.right, prec, True)}"
    raise TypeError(f"not a formula node: {node!r}")


def normalize(text):
    """Canonical spelling of a formula: same meaning, minimal parentheses."""
    return to_string(parse(text))
