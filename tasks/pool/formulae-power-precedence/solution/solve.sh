#!/bin/bash
set -e
cd /app

# step: parser - make ^ right-associative and give unary minus its own level between * / and ^
python3 - <<'PY'
from pathlib import Path
p = Path("formulae/parser.py")
s = p.read_text()
reps = [
    ('BINARY = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}\n',
     'BINARY = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 4}\nUNARY_PREC = 3\nRIGHT_ASSOC = {"^"}\n'),
    ("            right = self.expression(BINARY[op] + 1)\n",
     "            right = self.expression(BINARY[op] if op in RIGHT_ASSOC else BINARY[op] + 1)\n"),
    ("            return Neg(self.unary())\n", "            return Neg(self.expression(UNARY_PREC))\n"),
    ('        if self.tok.kind == "op" and self.tok.value == "+":\n            self.take()\n            return self.unary()\n',
     '        if self.tok.kind == "op" and self.tok.value == "+":\n            self.take()\n            return self.expression(UNARY_PREC)\n'),
]
for old, new in reps:
    assert old in s, old
    s = s.replace(old, new, 1)
p.write_text(s)
PY

# step[easy-to-miss]: formatter - parenthesize by the same rules so output parses back to the same tree
python3 - <<'PY'
from pathlib import Path
p = Path("formulae/format.py")
s = p.read_text()
start = s.index("from .parser import BINARY, parse\n")
end = s.index("def to_string(node):")
s = s[:start] + '''from .parser import BINARY, RIGHT_ASSOC, UNARY_PREC, parse


def _prec(node):
    if isinstance(node, BinOp):
        return BINARY[node.op]
    if isinstance(node, Neg):
        return UNARY_PREC
    return 100


def _wrap(child, parent_op, is_right):
    text = to_string(child)
    prec, cprec = BINARY[parent_op], _prec(child)
    if parent_op in RIGHT_ASSOC:
        need = (cprec < prec and not isinstance(child, Neg)) if is_right else cprec <= prec
    else:
        need = cprec <= prec if is_right else cprec < prec
    return f"({text})" if need else text


''' + s[end:]
old = """        inner = to_string(node.operand)
        if isinstance(node.operand, BinOp):
            inner = f"({inner})"
"""
new = """        inner = to_string(node.operand)
        if _prec(node.operand) < UNARY_PREC:
            inner = f"({inner})"
"""
assert old in s
s = s.replace(old, new, 1)
old = "        prec = BINARY[node.op]\n        return f\"{_wrap(node.left, prec, False)} {node.op} {_wrap(node.right, prec, True)}\"\n"
assert old in s
s = s.replace(old, "        return f\"{_wrap(node.left, node.op, False)} {node.op} {_wrap(node.right, node.op, True)}\"\n", 1)
p.write_text(s)
PY
