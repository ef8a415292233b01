"""A run freezes the heap it starts with, once per process (again only when LiteLLM comes in)."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import gc, sys
from modularrsi.util.heap import settle
counts = [gc.get_freeze_count()]
settle(False); counts.append(gc.get_freeze_count())
kept = [[i] for i in range(50_000)]  # what a run allocates is not frozen by a second run
settle(False); counts.append(gc.get_freeze_count())
settle(True); counts.append(gc.get_freeze_count())
settle(True); settle(False); counts.append(gc.get_freeze_count())
import json; print(json.dumps([counts, "litellm" in sys.modules]))
"""


def test_settle_freezes_once_and_again_only_for_litellm():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True).stdout
    (before, first, again, with_litellm, last), litellm = json.loads(out)
    assert first > before
    assert again == first
    assert with_litellm > first + 50_000 and litellm
    assert last == with_litellm
