"""bench/small_tier/editors.py: each proposal's ending, with what its kept conversation shows, and the run's
counts - read from the run directory alone."""

from __future__ import annotations

import json

import pytest
from testutil import load_script

from modularrsi.evolve.history import Change

editors = load_script("bench/small_tier/editors.py")


def message(role: str, content: str, purpose: str) -> str:
    return json.dumps({"role": role, "purpose": purpose, "content": content}) + "\n"


def test_a_run_is_summarised_proposal_by_proposal_with_its_conversations(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    changes = [Change(id="completion/e0/d0-0", lane="completion", epoch=0, module="completion", editor="e",
                      outcome="editor_failed", reason="the editor did not finish within 4 turns"),
               Change(id="tool_use/e0/d0-0", lane="tool_use", epoch=0, module="tool_use", editor="e",
                      outcome="rejected", rejected_by="review", reason="no causal chain", files=["modules/x.py"])]
    (run / "history.jsonl").write_text("".join(c.model_dump_json() + "\n" for c in changes))
    talk = run / "lanes" / "completion" / "epoch_0" / "gates" / "0-0" / "editor.jsonl"
    talk.parent.mkdir(parents=True)
    talk.write_text(message("system", "s", "editor_system") + message("user", "task", "editor_task")
                    + message("assistant", "w", "editor_reply")
                    + message("user", "wrote completion/a.py (10 chars)", "tool_result")
                    + message("assistant", "w", "editor_reply")
                    + message("user", "wrote completion/a.py: the same text it held already, so nothing changed",
                              "tool_result")
                    + message("assistant", "e", "editor_reply")
                    + message("user", "error: 'old' must occur exactly once", "tool_result")
                    + message("assistant", "d", "editor_reply")
                    + message("user", "Refused: the description: too short. Fix it, then call done again.",
                              "tool_result"))
    out = tmp_path / "editors.json"
    assert editors.main([str(run), "--json", str(out)]) == 0
    [summary] = json.loads(out.read_text())
    assert (summary["proposals"], summary["finished"], summary["with_transcript"]) == (2, 1, 1)
    assert summary["outcomes"] == {"editor_failed": 1, "rejected by review": 1}
    assert (summary["wrote_a_file"], summary["called_done"]) == (1, 1)
    failed = summary["rows"][0]
    assert failed["turns"] == 4 and failed["wrote"] == ["completion/a.py"] and failed["failed_calls"] == 1
    assert failed["same_text_writes"] == 1 and failed["dones_refused"] == 1
    assert failed["last_refusal"] == "the description: too short. Fix it, then call done again."
    assert "turns" not in summary["rows"][1]  # no conversation kept for it: its ending alone
    printed = capsys.readouterr().out
    assert "2 proposals, 1 finished by the editor" in printed and "1 dones refused" in printed


def test_a_directory_that_is_no_evolution_run_is_one_line(tmp_path):
    with pytest.raises(SystemExit, match="no history.jsonl; give an evolution run directory"):
        editors.main([str(tmp_path)])


def test_in_the_guided_format_a_file_that_passed_the_checks_counts_as_written(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "history.jsonl").write_text(Change(id="completion/e0/d0-0", lane="completion", epoch=0,
                                              module="completion", editor="e", outcome="rejected",
                                              rejected_by="execution").model_dump_json() + "\n")
    talk = run / "lanes" / "completion" / "epoch_0" / "gates" / "0-0" / "editor.jsonl"
    talk.parent.mkdir(parents=True)
    talk.write_text(message("system", "s", "editor_system")
                    + message("user", "Direction ...\nWrite completion/evidence.py: a NEW additive file ...",
                              "editor_task")
                    + message("assistant", "code", "editor_reply")
                    + message("user", "Now describe your change in one sentence ...", "tool_result")
                    + message("assistant", "Agents ... because ...", "editor_reply"))
    [row] = editors.run_summary(run)["rows"]
    assert row["wrote"] == ["completion/evidence.py"] and row["turns"] == 2
