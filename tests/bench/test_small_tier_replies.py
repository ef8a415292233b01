"""bench/small_tier/replies.py: why a real model's replies were refused, and the rate a run made attempts at."""

from __future__ import annotations

import json

import pytest
from testutil import load_script

replies = load_script("bench/small_tier/replies.py")

GOOD = {"analysis": "a", "plan": "p", "commands": [{"keystrokes": "ls\n", "duration": 0.1}], "task_complete": False}
RAW_NEWLINE = '{"analysis": "line one\nline two", "plan": "p", "commands": [], "task_complete": false}'
NESTED = ('{"analysis": "a", "plan": "first:\n```json\n{"commands": [{"keystrokes": "ls\\n"}]}\n```\nthen"}\n'
          "Here it is again:\n```json\n" + json.dumps(GOOD) + "\n```")


@pytest.mark.parametrize(("reply", "tokens", "expected"), [
    (RAW_NEWLINE, 50, "raw-control-char"),
    (NESTED, 80, "valid-object-later"),
    ('{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "l', 1024, "cut-off"),
    ("I will list the files.", 10, "no-object"),
    ('{"analysis": "a" "plan": "p"}', 20, "other"),
])
def test_refused_replies_are_classed_by_the_first_explanation(reply, tokens, expected):
    assert replies.refusal_class(reply, tokens, cap=1024) == expected


def trial(root, name, started, finished, steps, reward=0.0):
    (root / name / "agent").mkdir(parents=True)
    (root / name / "result.json").write_text(json.dumps({
        "started_at": started, "finished_at": finished, "verifier_result": {"rewards": {"reward": reward}}}))
    agent_steps = [{"source": "agent", "message": text, "metrics": {"completion_tokens": 100},
                    "extra": {"parse_error": "bad"} if bad else {}} for text, bad in steps]
    (root / name / "agent" / "trajectory.json").write_text(json.dumps({
        "steps": [{"source": "user", "message": "task"}, *agent_steps],
        "final_metrics": {"total_prompt_tokens": 1000, "total_cached_tokens": 900, "total_completion_tokens": 300,
                          "extra": {"ending": {"reason": "turn_limit"}}}}))


def test_a_run_is_summarised_from_its_trials(tmp_path, capsys):
    trials = tmp_path / "run" / "trials"
    trial(trials, "t__a0", "2026-01-01T00:00:00Z", "2026-01-01T00:30:00Z",
          [(RAW_NEWLINE, True), (RAW_NEWLINE, True), (json.dumps(GOOD), False)])
    trial(trials, "t__a1", "2026-01-01T00:10:00Z", "2026-01-01T01:00:00Z", [(json.dumps(GOOD), False)], reward=1.0)
    assert replies.main([str(tmp_path / "run"), "--json", str(tmp_path / "out.json")]) == 0
    figures = json.loads((tmp_path / "out.json").read_text())["summary"]
    assert figures["attempts"] == 2 and figures["passed"] == 1 and figures["turns"] == 4
    assert figures["refused"] == 2 and figures["refused_by_class"] == {"raw-control-char": 2}
    assert figures["repeated_replies"] == 1 and figures["prefix_cached_share"] == 0.9
    assert figures["repeated_refused"] == 1 and figures["ending_in_refused_loop"] == 0  # it got out of the loop
    assert figures["wall_hours"] == 1.0 and figures["attempts_per_hour"] == 2.0 and figures["most_at_once"] == 2
    assert "attempts_per_hour" in capsys.readouterr().out
    assert replies.main([str(tmp_path / "empty")]) == 2


def test_a_resumed_run_counts_only_its_busy_time(tmp_path):
    # one attempt, then the run stopped for a day and was resumed for another: 1 busy hour, not 25
    trials = tmp_path / "run" / "trials"
    trial(trials, "t__a0", "2026-01-01T00:00:00Z", "2026-01-01T00:30:00Z", [(json.dumps(GOOD), False)])
    trial(trials, "t__a1", "2026-01-02T00:00:00Z", "2026-01-02T00:30:00Z", [(json.dumps(GOOD), False)])
    figures = replies.summary([replies.attempt(t, 1024) for t in replies.trials_under(tmp_path / "run")])
    assert figures["wall_hours"] == 1.0 and figures["attempts_per_hour"] == 2.0


def test_an_invalid_escape_is_told_from_an_escaped_backslash():
    reply = '{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "find . -exec rm {} \\\\;\\n"}]}'
    assert json.loads(reply)  # "\\\\;" is an escaped backslash and a ';': valid JSON
    assert replies.double_bad_escapes(r'"a \' b \\ c \n"') == r'"a \\' + "'" + r' b \\ c \n"'
    broken = '{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "python3 -c \'open(\\\'x\\\')\'\\n"}]}'
    assert replies.refusal_class(broken, 40, cap=1024) == "invalid-escape"


def test_an_attempt_answering_the_feedback_with_one_refused_reply_to_its_end_is_a_refused_loop(tmp_path):
    trials = tmp_path / "run" / "trials"
    trial(trials, "t__a0", "2026-01-01T00:00:00Z", "2026-01-01T00:30:00Z",
          [(json.dumps(GOOD), False), *[(RAW_NEWLINE, True)] * 3])
    trial(trials, "t__a1", "2026-01-01T00:00:00Z", "2026-01-01T00:30:00Z",  # three refusals, not one reply
          [(RAW_NEWLINE, True), (RAW_NEWLINE + " ", True), (RAW_NEWLINE, True)])
    assert replies.main([str(tmp_path / "run"), "--json", str(tmp_path / "out.json")]) == 0
    figures = json.loads((tmp_path / "out.json").read_text())["summary"]
    assert figures["ending_in_refused_loop"] == 1 and figures["repeated_refused"] == 2
