"""The guided editor's one function in a core file: the harness renames the wrapped callable and calls it on
what the model's function returns; what it cannot use is said in one line."""

from __future__ import annotations

import pytest

from modularrsi.evolve.editor_hole import HOLES, fill
from modularrsi.harness import BASELINE
from modularrsi.harness.checks import declarations
from modularrsi.harness.library import check_contract, check_source

HOLE = HOLES[0]
CORE = BASELINE / "modules" / "tool_use" / "terminus_json.py"


def test_the_function_goes_in_front_of_parse_and_the_file_still_meets_its_contract():
    filled = fill(HOLE, CORE.read_text(), "import json\nimport re\ndef repair_reply(text):\n    return text.strip()\n"
                  "def other():\n    return 1\n")
    tree = check_source(CORE, filled)
    check_contract(CORE, "tool_use", declarations(CORE, tree))  # raises if it did not
    assert "import json\nimport re\n\n\ndef repair_reply(text):\n    return text.strip()\n" in filled
    assert "def other" not in filled and "def parse_before_repair_reply(text, ctx):" in filled
    assert "Each text first goes through repair_reply (an edit's)." in filled
    with pytest.raises(ValueError, match="defines repair_reply already"):
        fill(HOLE, filled, "def repair_reply(text):\n    return text\n")


@pytest.mark.parametrize(("code", "reason"), [
    ("def repair_reply(text, extra):\n    return text\n", "must define def repair_reply\\(text\\): with one argument"),
    ("def fix(text):\n    return text\n", "must define def repair_reply"),
    ("def repair_reply(text)\n    return text\n", "your function does not parse: line 1"),
])
def test_what_cannot_be_used_is_said_in_one_line(code, reason):
    with pytest.raises(ValueError, match=reason):
        fill(HOLE, CORE.read_text(), code)
