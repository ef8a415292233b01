"""Sizes of ``src/modularrsi`` (STYLE.md, "small files, small functions"): no file over 350 lines, and
nine functions in ten at most 20 lines long (a function's lines run from its ``def`` to its last line;
methods and nested functions count as functions of their own)."""

from __future__ import annotations

import ast
import math
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "modularrsi"
MAX_FILE_LINES = 350
MAX_P90_FUNCTION_LINES = 20


def file_lines() -> dict[str, int]:
    return {str(p.relative_to(SRC)): len(p.read_text().splitlines()) for p in sorted(SRC.rglob("*.py"))}


def function_lines() -> list[int]:
    return [node.end_lineno - node.lineno + 1 for path in sorted(SRC.rglob("*.py"))
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None]


def percentile(values: list[int], share: float) -> int:
    """The smallest value that ``share`` of ``values`` do not exceed (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def test_no_file_is_over_the_limit():
    over = {name: n for name, n in file_lines().items() if n > MAX_FILE_LINES}
    assert not over, f"over {MAX_FILE_LINES} lines: {over}"


def test_nine_functions_in_ten_are_short():
    lengths = function_lines()
    assert len(lengths) > 100  # the walk found the code
    assert percentile(lengths, 0.9) <= MAX_P90_FUNCTION_LINES


def test_percentile_is_the_nearest_rank():
    assert percentile(list(range(1, 11)), 0.9) == 9 and percentile([5], 0.9) == 5
    assert percentile([1, 2, 3, 40], 0.5) == 2
