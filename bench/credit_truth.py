"""The credit bench's ground truth: which catalogue function undoes which ``sim`` failure mode.

Only the bench reads this; the evolution never does. A score row keeps what a run promoted and proposed
(function names) and the world's active modes, and every judgement — right or false, recall — is made
from those names by :func:`judged` when the row is read. So a correction here re-scores committed runs
without running them again, and a table always shows the ground truth as it stands (the docs say when it
changed and what the table read before).
"""

from __future__ import annotations

#: The modes each catalogue function undoes in the sim world, by the sim's own reactions
#: (``tests/bench/test_credit_truth.py`` checks the long-output row against the sim agent's perception).
ADDRESSES: dict[str, set[str]] = {
    "requirements_recap": {"skip_requirement", "early_claim"},
    # a plain challenge of a claim: the sim takes a dropped step back at recover_plain (0.1) per message
    # after a claim, so one or two more challenges undo the two modes weakly (+0.068 Acc, 4 of 44 tasks up
    # and none down in bench/mechanisms.py's default world)
    "evidence_check": {"skip_requirement", "early_claim"},
    "outputs_checklist": {"skip_requirement", "early_claim"},
    "task_reminder": {"skip_requirement", "early_claim", "command_loop", "forgetting"},
    "loop_guard": {"command_loop"},
    "trim_listing": {"long_output"}, "tail_window": {"long_output"},
    # harmful in intent (it hides every line but errors, so the agent waits on commands it cannot see
    # finish: +13 steps an attempt), but the sim's long-output mode reads only an observation's size, and
    # what is left is short: the same 5 / 3 attempt flips as tail_window in bench/mechanisms.py
    "errors_only": {"long_output"},
    "rolling_compaction": {"forgetting"}, "instruction_pin": {"forgetting"},
    "terminus_json_repair": {"malformed_recoverable"}, "quoted_feedback": {"malformed_recoverable"},
}
#: One mechanism per mode: the best generation reachable in a world is gen_0 plus these for its modes.
BEST = {"skip_requirement": "requirements_recap", "early_claim": "requirements_recap", "command_loop": "loop_guard",
        "long_output": "trim_listing", "forgetting": "instruction_pin", "malformed_recoverable": "json_repair"}


def is_right(function: str, active: set[str]) -> bool:
    """Whether ``function`` undoes a mode active in the world."""
    return bool(ADDRESSES.get(function, set()) & active)


def judged(row: dict) -> dict:
    """A score row with its judgements (right, false, recall, each proposal's right) made from its names."""
    active = set(row["active"])
    right = [n for n in row["promoted"] if is_right(n, active)]
    covered = {m for n in row["promoted"] for m in ADDRESSES.get(n, set())} & active
    return {**row, "right": len(right), "false": len(row["promoted"]) - len(right),
            "recall": len(covered) / len(active) if active else 0.0,
            "proposals": [{**p, "right": is_right(p["function"], active)} for p in row.get("proposals", [])]}
