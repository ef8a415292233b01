"""The ``dict[str, Any]`` left in ``src/modularrsi``, each with the reason it is not a model. JSON whose
shape is not the project's goes by a name that says whose it is (``util/jsontypes.py``: an external
API's wire body, a JSON Schema, options passed through whole, input before validation); anything else
is listed here. A new one fails this test: make it a model, or name why it cannot be one."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "modularrsi"
#: file → (how many, why they stay)
ALLOWED = {
    "util/jsontypes.py": (4, "the four named kinds of foreign JSON themselves"),
    "harness/protocols.py": (3, "LoopState.notes, Ctx.params and Ctx.memo: the functions' own JSON values, part "
                                "of the frozen contract evolved functions are written against"),
    "harness/agent.py": (1, "privileged: what only a simulator may know of a task; the harness passes it on unread"),
    "models/registry.py": (4, "privileged (as above, twice); cache_scope and cache_settings: the JSON hashed into "
                              "every cache key"),
    "rollouts/config.py": (1, "RunConfig.dump: the config as written to config.yaml (model_dump's output)"),
    "evolve/memory.py": (2, "a memory row's payload: the JSON of a Finding, Direction or Change, each read back "
                            "through its own model by its reader (one table holds all three kinds)"),
    "evolve/gates/__init__.py": (1, "GateVerdict.details: each gate's own measurements; the execution gate's are "
                                    "read back through ExecutionDetails, the others are only shown"),
    "evolve/history.py": (1, "Change.decided's fields: validated by Change on the next line"),
    "evolve/findings.py": (1, "strength_fields: keyword arguments of Finding, validated by it"),
    "evolve/share.py": (1, "drawn_settings: model_dump's output of two runs' settings, compared key by key"),
    "evolve/eval_share.py": (1, "drawn: model_dump's output of two eval sides' settings, compared whole"),
}


def counts() -> Counter[str]:
    found: Counter[str] = Counter()
    for path in SRC.rglob("*.py"):
        n = len(re.findall(r"dict\[str, Any\]", path.read_text()))
        if n:
            found[str(path.relative_to(SRC))] = n
    return found


def test_every_untyped_dict_has_a_reason():
    assert dict(counts()) == {path: n for path, (n, _) in ALLOWED.items()}


def test_there_are_fewer_than_thirty():
    assert sum(n for n, _ in ALLOWED.values()) < 30
