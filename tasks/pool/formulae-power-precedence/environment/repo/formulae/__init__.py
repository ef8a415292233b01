"""formulae - safe arithmetic formulas for spreadsheet-like pricing rules.

    >>> evaluate("price * (1 + vat)", price=10, vat=0.2)
    12.0
"""
from .errors import FormulaError
from .nodes import BinOp, Call, Neg, Num, Var
from .parser import parse
from .evaluate import evaluate, evaluate_node
from .format import normalize, to_string

__all__ = ["FormulaError", "BinOp", "Call", "Neg", "Num", "Var", "parse",
           "evaluate", "evaluate_node", "normalize", "to_string"]
