"""Signals on real sim trajectories and on hand-made ATIF-like ones; first divergence; partial files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from testutil import SAMPLED_TASKS

from modularrsi.evolve.signals import CLAIM_MARK, decisions, first_divergence, is_inspection, signals_of

TASKS = SAMPLED_TASKS  # the tasks of the shared `run_dir` fixture (tests/evolve/conftest.py)


# ------------------------------------------------------------------ hand-made ATIF-like trajectories
def agent(step_id: int, keys: list[str] | None, claim: bool = False, purpose: str = "observation",
          observation: str = "out", parse_error: str | None = None) -> dict:
    calls = [{"tool_call_id": f"c{step_id}_{i}", "function_name": "bash_command",
              "arguments": {"keystrokes": k, "duration": 0.1}} for i, k in enumerate(keys or [])]
    if claim:
        calls.append({"tool_call_id": f"c{step_id}_done", "function_name": "mark_task_complete", "arguments": {}})
    return {"step_id": step_id, "source": "agent", "message": "m", "tool_calls": calls or None,
            "observation": {"results": [{"content": observation}]},
            "extra": {"turn": step_id - 1, "purpose": purpose, "parse_error": parse_error}}


def trajectory(*steps: dict, finished: bool = True) -> dict:
    first = {"step_id": 1, "source": "user", "message": "do it", "extra": {"purpose": "instruction"}}
    final = {"total_steps": len(steps) + 1, "extra": {"ending": {"reason": "completed"}}} if finished else None
    return {"schema_version": "ATIF-v1.4", "session_id": "s", "agent": {"name": "a", "version": "1"},
            "steps": [first, *steps], "final_metrics": final}


def write_trial(root: Path, data: dict | None, episode: dict | None = None, trace: str | None = None) -> Path:
    (root / "agent").mkdir(parents=True)
    if data is not None:
        (root / "agent" / "trajectory.json").write_text(json.dumps(data))
    if episode is not None:
        (root / "agent" / "episode.json").write_text(json.dumps(episode))
    if trace is not None:
        (root / "agent" / "module_trace.jsonl").write_text(trace)
    return root


LOOPING = trajectory(
    agent(2, ["cat > fix.py <<'EOF'\nprint(1)\nEOF\n"]),
    agent(3, None, purpose="parse_error_feedback", parse_error="No valid JSON found"),
    agent(4, ["ls -la\n"]), agent(5, ["ls  -la\n"]), agent(6, [""]), agent(7, ["ls -la\n"]),
    agent(8, ["python3 fix.py\n"], purpose="observation+intervention", observation="x" * 3000),
    {"step_id": 9, "source": "system", "message": "Context compacted",
     "extra": {"context_management": {"type": "compaction", "trigger": "proactive"}}},
    agent(10, ["ls -la\n"]),
    agent(11, [], claim=True, purpose="completion_check"), agent(12, [], claim=True))


def test_hand_made_trajectory_counts_loops_parse_errors_and_mechanisms(tmp_path):
    trial = write_trial(tmp_path / "t__a0", LOOPING, {"ending": "completed", "turns": 10}, '{"turn": 1}\n')
    s = signals_of(trial)
    assert s.complete and s.ending == "completed" and s.notes == ()
    assert (s.turns, s.parse_errors, s.parse_error_steps) == (10, 1, (3,))
    assert (s.commands, s.state_changes) == (6, 2)  # the wait at step 6 is not a command
    assert (s.repeated_commands, s.repeated_command_steps, s.max_repeat_run) == (3, (5, 7, 10), 3)  # waits: no break
    assert (s.interventions, s.intervention_steps, s.compactions) == (1, (8,), 1)
    assert (s.completion_claims, s.completion_without_evidence) == (2, 0)  # `ls` after `python3 fix.py`
    assert s.max_observation_bytes == 3000 and len(s.observation_bytes) == 10
    assert s.mean_observation_bytes == pytest.approx((3000 + 9 * 3) / 10, abs=0.1)


def test_refused_replies_sent_again_word_for_word_are_counted(tmp_path):
    def refused(step_id: int, text: str) -> dict:
        return agent(step_id, None, purpose="parse_error_feedback", parse_error="Invalid control character") | {
            "message": text}
    s = signals_of(write_trial(tmp_path / "t", trajectory(
        agent(2, ["ls\n"]), refused(3, "A"), refused(4, "A"), refused(5, "A"), refused(6, "B"), agent(7, ["ls\n"]),
        refused(8, "B"))))
    # 4 and 5 copy 3; 6 differs; 8 follows a read reply, so it copies nothing even though 6 said the same
    assert (s.parse_errors, s.resent_refusals, s.resent_refusal_steps) == (5, 2, (4, 5))


@pytest.mark.parametrize(("turns", "expected"), [
    ([agent(2, ["make\n"]), agent(3, [], claim=True)], (3,)),                           # no check after the build
    ([agent(2, ["make\n"]), agent(3, ["make test\n"]), agent(4, [], claim=True)], ()),  # checked
    ([agent(2, ["make\n"]), agent(3, ["cat out\n"]), agent(4, ["rm x\n"], claim=True)], (4,)),  # changed while claiming
    ([agent(2, ["make\n"]), agent(3, ["cat out\n"], claim=True)], (3,)),  # claimed before reading the check
    ([agent(2, [], claim=True)], (2,)),                                     # nothing ran at all
    ([agent(2, ["make\n"]), agent(3, ["cat out\n"]), agent(4, [""]), agent(5, [], claim=True),
      agent(6, [], claim=True)], ()),                                       # waits neither check nor change
])
def test_completion_without_evidence(tmp_path, turns, expected):
    s = signals_of(write_trial(tmp_path / "t__a0", trajectory(*turns), {"ending": "completed"}, ""))
    assert s.unevidenced_claim_steps == expected and s.completion_without_evidence == len(expected)


@pytest.mark.parametrize(("keys", "reads"), [
    ("ls -la; find /usr/share/doc -maxdepth 2 | head -n 400\n", True), ("cat a 2>&1 >/dev/null", True),
    ("git status && git diff HEAD", True), ("python3 -m pytest -q tests/", True), ("make test", True),
    ("LC_ALL=C sudo grep -r x .", True), ("sed -n 1,5p f", True),
    ("echo 'abc' | base64 -d > /tmp/s.sh; bash /tmp/s.sh\n", False), ("echo hi >> log", False),
    ("sed -i s/a/b/ f", False), ("find . -name '*.o' -delete", False), ("git commit -am x", False),
    ("make", False), ("python3 fix.py", False), ("cat <<EOF > f\nx\nEOF\n", False), ("echo 'unbalanced", False),
    ("", False), ("   \n", False),
])
def test_inspection_classifier(keys, reads):
    assert is_inspection(keys) is reads


def test_first_divergence_skips_waits_and_tolerates_volatile_markers():
    script = "echo 'c2V0IC1lCmNkIC9hcHAKcHl0aG9uMyBmaXgucHkK' | base64 -d > /tmp/.s1.sh; bash /tmp/.s1.sh; echo M{}\n"
    passing = trajectory(agent(2, ["ls\n"]), agent(3, [script.format(123456)]), agent(4, [""]),
                         agent(5, ["python3 -m pytest -q\n"]), agent(6, [], claim=True))
    failing = trajectory(agent(2, ["ls\n"]), agent(3, None, parse_error="bad"), agent(4, [script.format(987654)]),
                         agent(5, [], claim=True))
    d = first_divergence(passing, failing)
    assert (d.index, d.pass_step, d.fail_step) == (2, 5, 5)
    assert (d.pass_keys, d.fail_keys) == ("python3 -m pytest -q\n", CLAIM_MARK)
    assert [t.step_id for t in decisions(failing)] == [2, 4, 5]
    assert first_divergence(passing, passing) is None
    assert first_divergence(passing, passing, similarity=1.0) is None


def test_first_divergence_when_one_attempt_stops_early():
    longer = trajectory(agent(2, ["ls\n"]), agent(3, ["make\n"]), agent(4, ["make install\n"]))
    shorter = trajectory(agent(2, ["ls\n"]), agent(3, ["make\n"]))
    d = first_divergence(longer, shorter)
    assert (d.index, d.pass_step, d.pass_keys, d.fail_step, d.fail_keys) == (2, 4, "make install\n", None, None)
    d = first_divergence(trajectory(), longer)
    assert (d.index, d.pass_step, d.fail_step) == (0, None, 2)


def test_real_trajectories_agree_with_the_episode_record(run_dir):
    trials = sorted((run_dir / "trials").iterdir())
    assert len(trials) == 3 * len(TASKS)
    for trial in trials:
        s = signals_of(trial)
        episode = json.loads((trial / "agent" / "episode.json").read_text())
        assert s.complete and s.notes == ()
        assert (s.turns, s.parse_errors, s.completion_claims, s.ending) == (
            episode["turns"], episode["parse_errors"], episode["completion_claims"], episode["ending"])
        assert len(s.observation_bytes) == s.turns and s.max_observation_bytes >= s.mean_observation_bytes > 0
        assert s.commands >= s.state_changes and s.completion_without_evidence <= s.completion_claims


def test_real_divergence_points_at_agent_steps(run_dir):
    results = {p.name: json.loads((p / "result.json").read_text()) for p in (run_dir / "trials").iterdir()}
    for task in TASKS:
        trials = sorted(run_dir / "trials" / n for n in results if n.startswith(f"{task}__a"))
        assert first_divergence(trials[0], trials[0]) is None
        passing = [t for t in trials if results[t.name]["verifier_result"]["rewards"]["reward"] == 1.0]
        failing = [t for t in trials if t not in passing]
        a, b = (passing + failing)[0], (failing + passing)[0]
        d = first_divergence(a, b)
        if d is None:
            continue
        steps = {s["step_id"]: s for s in json.loads((a / "agent" / "trajectory.json").read_text())["steps"]}
        assert d.index <= min(len(decisions(a)), len(decisions(b)))
        if d.pass_step is not None:
            assert steps[d.pass_step]["source"] == "agent" and d.pass_keys


def test_missing_and_partial_files_never_crash(run_dir, tmp_path):
    assert signals_of(tmp_path / "nothing").complete is False
    trial = tmp_path / "copy"
    shutil.copytree(run_dir / "trials" / f"{TASKS[0]}__a0", trial)
    expected_turns = signals_of(trial).turns
    (trial / "agent" / "trajectory.json").unlink()
    (trial / "agent" / "episode.json").write_text('{"ending": "compl')
    s = signals_of(trial)
    assert not s.complete and s.turns == expected_turns and s.ending == "completed"  # from the trace
    assert "missing trajectory.json" in s.notes and "unreadable episode.json: JSONDecodeError" in s.notes
    (trial / "agent" / "trajectory.json").write_text(json.dumps(trajectory(agent(2, ["ls\n"]), finished=False)))
    (trial / "agent" / "module_trace.jsonl").write_text('{"turn": 1, "event": "model"}\n{"turn": 2, "ev')
    s = signals_of(trial)
    assert not s.complete and s.turns == 1 and s.ending is None
    assert "partial line in module_trace.jsonl" in s.notes
    (trial / "agent" / "trajectory.json").write_text('{"steps": [1, {"source": "agent", "tool_calls": "x"}]}')
    assert signals_of(trial).turns == 1
