"""bench/credit_verdicts.py: where the execution gate ended each proposal, read from a run's history."""

from __future__ import annotations

import json
import subprocess
import sys

from testutil import REPO, load_script

verdicts = load_script("bench/credit_verdicts.py")


def gate(stage: str, passed: bool, reason: str = "", **details) -> dict:
    return {"gate": "execution", "passed": passed, "reason": reason, "details": {"stage": stage, **details}}


def record(function: str, module: str, *gates: dict, lane: str | None = None) -> dict:
    return {"lane": lane or module, "module": module, "files": ["manifest.json", f"modules/{module}/{function}.py"],
            "gates": [{"gate": "static", "passed": True, "reason": "", "details": {}}, *gates]}


HISTORY = [
    record("tail_window", "observation", gate("screen", True), gate("confirm", True, "confirm: …", decision="accept",
                                                                     pairs=14, b=4, c=0)),
    record("trim_listing", "observation", gate("screen", True), gate("race", False, "raced: …")),
    record("evidence_check", "completion", gate("screen", False, "fixes no diagnosed failure")),
    record("quoted_feedback", "tool_use", gate("screen", True),
           gate("confirm", False, "undecided: …", decision="undecided", pairs=12, b=0, c=0, rounds=3,
                rule={"max_rounds": 6})),
    record("terminus_json_repair", "tool_use", gate("screen", True),
           gate("confirm", False, "undecided: …", decision="undecided", pairs=36, b=4, c=1, rounds=6,
                rule={"max_rounds": 6})),
    record("strip_ansi", "observation", gate("screen", True),
           gate("confirm", False, "evidence against the change", decision="reject", pairs=30, b=1, c=2)),
    record("loop_guard", "agent_loop"),  # ended by the static gate: never reached execution
    record("tail_window", "observation", gate("screen", True), lane="integration"),
    record("trim_listing", "observation", gate("screen", True)),  # a run stopped before its confirm: left out
]


def test_where_each_proposal_ended():
    rows = verdicts.verdicts(HISTORY, active={"long_output", "malformed_recoverable"})
    ends = {r["function"]: (r["right"], r["end"]) for r in rows}
    assert ends == {"tail_window": (True, "accepted"), "trim_listing": (True, "raced out"),
                    "evidence_check": (False, "screen: fixed none"), "quoted_feedback": (True, "quiet"),
                    "terminus_json_repair": (True, "at the cap"), "strip_ansi": (False, "rejected")}
    table = verdicts.table({"lanes": rows}).splitlines()
    assert table[2] == "| lanes | right | 4 | 0 | 1 | 1 | 0 | 1 | 1 | 62 | 8 / 1 | 0.145 | 0.89 |"
    assert table[3] == "| lanes | other | 2 | 1 | 0 | 0 | 1 | 0 | 0 | 30 | 1 / 2 | 0.100 | 0.33 |"


def test_reads_the_runs_of_committed_scores(tmp_path):
    scores, out = tmp_path / "scores", tmp_path / "runs"
    scores.mkdir()
    (scores / "w3-lanes.json").write_text(json.dumps({"method": "lanes", "active": ["long_output"]}))
    (scores / "w3-best.json").write_text("0.25")
    (out / "w3-lanes").mkdir(parents=True)
    (out / "w3-lanes" / "history.jsonl").write_text("".join(json.dumps(r) + "\n" for r in HISTORY))
    script = [sys.executable, str(REPO / "bench" / "credit_verdicts.py")]
    done = subprocess.run([*script, str(out), str(scores)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "| lanes | right | 2 | 0 | 1 | 1 | 0 | 0 | 0 | 14 | 4 / 0 | 0.286 | 1.00 |" in done.stdout
    missing = subprocess.run([*script, str(tmp_path / "elsewhere"), str(scores)], capture_output=True, text=True,
                             timeout=300)
    assert missing.returncode != 0 and "history.jsonl: missing" in missing.stderr
    with (out / "w3-lanes" / "history.jsonl").open("a") as f:
        f.write('{"lane": "observ')  # a run cut off mid-line
    cut = subprocess.run([*script, str(out), str(scores)], capture_output=True, text=True, timeout=300)
    assert cut.returncode != 0 and f"history.jsonl: line {len(HISTORY) + 1}: not JSON" in cut.stderr
    assert len(cut.stderr.strip().splitlines()) == 1
