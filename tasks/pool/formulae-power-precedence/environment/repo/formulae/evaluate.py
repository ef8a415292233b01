"""Evaluation of syntax trees."""
import math

from .errors import FormulaError
from .nodes import BinOp, Call, Neg, Num, Var
from .parser import parse

FUNCTIONS = {"min": min, "max": max, "abs": abs, "round": round, "sqrt": math.sqrt}


def evaluate_node(node, env):
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Var):
        try:
            return env[node.name]
        except KeyError:
            raise FormulaError(f"unknown variable {node.name!r}") from None
    if isinstance(node, Neg):
        return -evaluate_node(node.operand, env)
    if isinstance(node, Call):
        if node.name not in FUNCTIONS:
            raise FormulaError(f"unknown function {node.name!r}")
        return FUNCTIONS[node.name](*(evaluate_node(a, env) for a in node.args))
    if isinstance(node, BinOp):
        a, b = evaluate_node(node.left, env), evaluate_node(node.right, env)
        try:
            if node.op == "+":
                return a + b
            if node.op == "-":
                return a - b
            if node.op == "*":
                return a * b
            if node.op == "/":
                return a / b
            if node.op == "^":
                return a ** b
        except ZeroDivisionError:
            raise FormulaError("division by zero") from None
    raise FormulaError(f"cannot evaluate {node!r}")


def evaluate(text, **env):
    return evaluate_node(parse(text), env)
