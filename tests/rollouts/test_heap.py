"""A run freezes the heap it starts with, once per process (again only when LiteLLM comes in)."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import gc, json, sys
from modularrsi.util.heap import settle
counts = [gc.get_freeze_count()]
settle(); counts.append(gc.get_freeze_count())
kept = [[i] for i in range(50_000)]  # what a run allocates is not frozen by a second run
settle(); counts.append(gc.get_freeze_count())
from modularrsi.models.litellm_backend import litellm_module; litellm_module()  # offline defaults first
settle(); counts.append(gc.get_freeze_count())
settle(); counts.append(gc.get_freeze_count())
print(json.dumps(counts))
"""


def test_settle_freezes_once_and_again_only_when_litellm_came_in():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True).stdout
    before, first, again, with_litellm, last = json.loads(out)
    assert first > before
    assert again == first
    assert with_litellm > first + 50_000
    assert last == with_litellm
