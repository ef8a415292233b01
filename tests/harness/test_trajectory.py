"""The trajectory file is exactly what Harbor's model writes, however it is assembled."""

from __future__ import annotations

import json

from harbor.models.trajectories import Trajectory

from modularrsi.harness.protocols import Action, Message, Reply
from modularrsi.harness.trajectory import TrajectoryRecorder
from modularrsi.models.base import Completion


def reference(recorder: TrajectoryRecorder) -> str:
    return json.dumps(Trajectory(session_id=recorder.session_id, agent=recorder.agent, steps=recorder.steps,
                                 final_metrics=recorder.final_metrics).to_json_dict(), indent=2)


def test_every_save_writes_the_whole_document_as_harbor_encodes_it(tmp_path):
    path = tmp_path / "trajectory.json"
    recorder = TrajectoryRecorder(path, "s-1", "modular", "0.1", "openai/m", "gen_0",
                                  {"tool_use": ["parse_json"]})
    recorder.user(Message("user", "Fix the bug in /app — «ünïcode», quotes \" and\nnewlines", "instruction"))
    recorder.save()
    assert path.read_text() == reference(recorder)
    usage = Completion("", input_tokens=120, output_tokens=30, cost_usd=0.25)
    for turn in range(1, 4):
        reply = Reply(raw="{}", analysis=f"turn {turn}", plan="look",
                      actions=(Action("ls -la\n", 0.1), Action("cat x\n", 1.0)) if turn % 2 else (Action("pwd\n"),),
                      task_complete=turn == 3)
        recorder.turn(turn, "openai/m", Message("user", f"out {turn}", "observation"), reply,
                      Message("user", f"output {turn}\n\t{{\"k\": [1, 2]}}", "observation"), usage)
        recorder.save()
        assert path.read_text() == reference(recorder)
    bad = Reply(raw="not json", error="no JSON object found")
    recorder.turn(4, "openai/m", Message("user", "p", "observation"), bad,
                  Message("user", "fix it", "parse_error_feedback"), Completion(""))
    recorder.subagent(1, "summary", [Message("system", "sys"), Message("user", "summarise")], [], "a summary",
                      "openai/m", usage)
    recorder.compaction(Message("user", "handoff", "summary"))
    recorder.save()
    recorder.steps[0].message = "changed after it was written"  # what a later change to the code might do
    recorder.finish({"input_tokens": 500, "output_tokens": 90}, {"kind": "completed", "detail": ""})
    recorder.save()
    text = path.read_text()
    assert text == reference(recorder)  # the last save encodes every step afresh
    assert Trajectory.model_validate_json(text).steps[-1].message == "handoff"


def test_a_sub_trajectory_kind_outside_terminus2s_three_writes_no_file(tmp_path):
    """The kind is the tail of a purpose an evolved context function chooses; it names a file."""
    logs = tmp_path / "trial" / "agent"
    logs.mkdir(parents=True)
    recorder = TrajectoryRecorder(logs / "trajectory.json", "s-1", "modular", "0.1", "openai/m", "gen_0", {})
    for kind in ("../../escape", "../escape", "/tmp/escape", "x/escape", "notes"):
        recorder.subagent(1, kind, [Message("user", "summarise")], [], "a summary", "openai/m", Completion(""))
    assert [p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file()] == []
    recorder.subagent(1, "summary", [Message("user", "summarise")], [], "a summary", "openai/m", Completion(""))
    assert [p.name for p in logs.iterdir()] == ["trajectory.summarization-1-summary.json"]
