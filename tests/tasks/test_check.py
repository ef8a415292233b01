"""`tasks check` end to end: real Harbor trials in LocalSandbox; the judge is a ScriptedModel."""

import asyncio
import json
import os
import shutil
import subprocess
import sys

from testutil import REPO

from modularrsi.tasks.check import CheckConfig, check_judge, effective_steps, partial_solution
from modularrsi.tasks.check_judge import parse_judgement, prompt
from modularrsi.tasks.manifest import PoolManifest, TaskEntry, load_manifest, save_manifest

RUNNER = ("import typer, sys; from modularrsi.cli.check import command; "
          "from modularrsi.util.outbound import apply_offline_defaults; apply_offline_defaults(); typer.run(command)")
LONG = ("Create the file /app/done.txt containing the single word done, and then record that the job ran by "
        "writing the word ok into /app/stamp.txt; both files must end with a newline character.\n")
TWO_STEPS = ("#!/bin/bash\nset -e\n# step: write it\necho done > /app/done.txt\n"
             "# step: stamp it\necho ok > /app/stamp.txt\n")
NEEDS_BOTH = ("#!/bin/bash\nif grep -qx done /app/done.txt && grep -qx ok /app/stamp.txt; then echo 1; else echo 0; fi"
              " > /logs/verifier/reward.txt\n")
#: Deterministically flaky: the second oracle trial's verifier sees its trial's name as its host name.
FLAKY = ("#!/bin/bash\nif hostname | grep -q -- '-oracle2$'; then echo 0;"
         " elif grep -qx done /app/done.txt; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n")
SCORES = {"environment_integrity": {"score": 5, "reason": "self-contained"},
          "practicality_non_triviality": {"score": 2, "reason": "two echo commands"},
          "evaluator_validity": {"score": 4, "reason": "checks both files"}}


def run_check(*args, cwd=None):
    env = {**os.environ, "COLUMNS": "250"}
    return subprocess.run([sys.executable, "-c", RUNNER, *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=600)


def test_partial_solution_cuts_the_last_step_with_a_command_and_keeps_the_preamble():
    script = ("#!/bin/bash\nset -e\ncd /app\n# step: one\necho 1 > a\n# step[easy-to-miss]: two\necho 2 > b\n"
              "# step: notes only\n# nothing to run here\n\n")
    partial, cut = partial_solution(script)
    assert cut == "two"
    assert partial == ("#!/bin/bash\nset -e\ncd /app\n# step: one\necho 1 > a\n"
                       "# step: notes only\n# nothing to run here\n\n")
    assert effective_steps(script) == 2
    assert partial_solution("#!/bin/bash\n# step: empty\n# just a comment\n") is None


def test_judge_reply_parsing_and_failures_are_recorded_never_raised(task_factory, tmp_path):
    fenced = "Here you go:\n```json\n" + json.dumps(SCORES) + "\n```"
    assert parse_judgement(fenced)[0] == {"environment_integrity": 5, "practicality_non_triviality": 2,
                                          "evaluator_validity": 4}
    task = task_factory(name="judged")
    messages = prompt(task)
    assert "Create /app/done.txt" in messages[1].content and "reward.txt" in messages[1].content
    assert "FROM debian:bookworm-slim" in messages[1].content and "# step: write it" in messages[1].content
    cases = {"prose.json": ["Looks like a fine task to me."],
             "range.json": [json.dumps({**SCORES, "evaluator_validity": {"score": 9, "reason": "x"}})],
             "empty.json": []}
    for name, replies in cases.items():
        (tmp_path / name).write_text(json.dumps(replies))
    results = {name: asyncio.run(check_judge(task, CheckConfig(judge=f"scripted:{tmp_path / name}")))
               for name in cases}
    assert results["prose.json"].flags == ["judge-unparsed"] and results["prose.json"].ok
    assert results["prose.json"].error == "judge reply could not be parsed: no JSON object in the reply"
    assert results["range.json"].error == ("judge reply could not be parsed: 'evaluator_validity.score' is 9, "
                                           "expected an integer 1-5")
    assert results["empty.json"].flags == ["judge-error"] and "UnexpectedCall" in results["empty.json"].error


def test_check_verdicts_flags_and_manifest(task_factory, tmp_path):
    instruction = {"instruction.md": LONG}
    good = task_factory(name="good", solve_sh=TWO_STEPS, test_sh=NEEDS_BOTH, files=instruction)
    task_factory(name="weak", solve_sh=TWO_STEPS, files=instruction)  # the test ignores stamp.txt
    task_factory(name="trivial")
    task_factory(name="oracle-zero", solve_sh=TWO_STEPS, files=instruction,
                 test_sh="#!/bin/bash\ntest -f /app/other.txt && echo 1 > /logs/verifier/reward.txt || "
                         "echo 0 > /logs/verifier/reward.txt\n")
    task_factory(name="flaky", solve_sh=TWO_STEPS, test_sh=FLAKY, files=instruction)
    task_factory(name="missing-copy", dockerfile="FROM debian:bookworm-slim\nWORKDIR /app\nCOPY data.txt /app/\n")
    task_factory(name="alpine", dockerfile="FROM alpine:3.19\n")
    manifest = tmp_path / "manifest.json"
    save_manifest(manifest, PoolManifest(pool=["x"], tasks={"good": TaskEntry(
        path="custom/good", success={"sim": {"attempts": 3, "passes": 1}})}))
    out = tmp_path / "out"
    result = run_check(good.parent, "--out", out, "--manifest", manifest, "-n", "4")
    assert result.returncode == 4, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert "ok good" in lines and "ok weak — weakly-verified" in lines and "ok trivial — trivial" in lines
    assert "FAIL oracle-zero — oracle-zero: oracle got reward 0, expected 1" in lines
    assert "FAIL flaky — flaky: oracle is flaky: rewarded 1 on 1/2 runs" in lines
    assert ("FAIL missing-copy — missing-copy: environment/Dockerfile:3: COPY source 'data.txt' not found under "
            "environment/; add it or fix the line") in lines
    assert any(line.startswith("FAIL alpine — alpine: ") and "base image 'alpine:3.19'" in line for line in lines)
    report = json.loads((out / "check.json").read_text())
    tasks = {t["task"]: t for t in report["tasks"]}
    assert (report["passed"], report["failed"]) == (3, 4)
    assert tasks["good"]["evaluator"] | {"reason": ""} == {
        "ok": True, "flags": [], "reason": "", "oracle": [1.0, 1.0], "nop": 0.0, "partial": 0.0,
        "partial_cut": "stamp it", "forgery": 0.0, "forged_by": []}
    assert tasks["good"]["non_triviality"]["steps"] == 2 and tasks["good"]["non_triviality"]["words"] >= 25
    assert tasks["weak"]["evaluator"]["partial"] == 1.0 and tasks["weak"]["ok"]
    assert tasks["missing-copy"]["evaluator"] is None
    assert not [p for p in (out / "trials").iterdir() if p.name.startswith(("missing-copy", "alpine"))]
    saved = load_manifest(manifest)
    assert saved.pool == ["x"] and set(saved.tasks) == set(tasks)
    assert saved.tasks["good"].path == "custom/good" and saved.tasks["good"].success["sim"]["passes"] == 1
    assert saved.tasks["good"].check.ok and saved.tasks["good"].check.oracle == [1.0, 1.0]
    assert saved.tasks["weak"].check.flags == ["weakly-verified"]
    assert saved.tasks["weak"].category == "systems-and-os"
    assert not saved.tasks["flaky"].check.ok


def test_judge_scores_reach_the_table_and_report(task_factory, tmp_path):
    task = task_factory(name="good", solve_sh=TWO_STEPS, test_sh=NEEDS_BOTH, files={"instruction.md": LONG})
    script = tmp_path / "judge.json"
    script.write_text(json.dumps([json.dumps(SCORES)]))
    out = tmp_path / "out"
    result = run_check(task, "--out", out, "--repeats", "1", "--judge", f"scripted:{script}")
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]
    assert "ok good — judge-low" in result.stdout.splitlines() and "5/2/4" in result.stdout
    judge = json.loads((out / "check.json").read_text())["tasks"][0]["judge"]
    assert judge["scores"] == {"environment_integrity": 5, "practicality_non_triviality": 2, "evaluator_validity": 4}
    assert judge["reasons"]["practicality_non_triviality"] == "two echo commands"


def test_bad_input_is_a_one_line_error(tmp_path):
    missing = run_check(tmp_path / "nothing")
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"error: {tmp_path / 'nothing'}: no such task or task directory"
    (tmp_path / "empty").mkdir()
    empty = run_check(tmp_path / "empty")
    assert empty.returncode == 2
    assert empty.stderr.strip() == (f"error: {tmp_path / 'empty'}: no task in it "
                                    "(a task is a directory with a task.toml)")


def test_a_task_whose_reward_the_agent_can_write_fails_naming_the_attack(tmp_path):
    task = tmp_path / "forgeable-greeting"
    shutil.copytree(REPO / "tests" / "tasks" / "data" / "forgeable-greeting", task)
    result = run_check(task, "--out", tmp_path / "out", "--repeats", "1")
    assert result.returncode == 4, result.stdout[-3000:]
    printed = " ".join(result.stdout.split())  # the progress line, wrapped at the terminal's width
    assert "FAIL forgeable-greeting — forgeable-greeting: reward forged without solving the task by writes-reward " \
           "(the agent's Python files, shell scripts and Makefiles write 1 to the reward files when run); " \
           "reward forged without solving the task by workdir-hooks (sitecustomize.py, usercustomize.py" in printed
    evaluator = json.loads((tmp_path / "out" / "check.json").read_text())["tasks"][0]["evaluator"]
    assert evaluator["flags"] == ["reward-forgeable"] and evaluator["forged_by"] == ["writes-reward", "workdir-hooks"]
    assert (evaluator["oracle"], evaluator["nop"], evaluator["partial"], evaluator["forgery"]) == ([1.0], 0.0, 0.0, 1.0)


#: One shipped task per verifier style: check.py, bash diff, hidden unittest in /app, unittest in a copy of the
#: repository, a check that imports the agent's code, an HTTP service with a clean-up, C built by the verifier.
SHIPPED_SAMPLE = ["pool/crm-contacts-dedup-by-email", "heldout/merge-env-dropins",
                  "heldout/ledgerkit-allocate-lost-cents", "heldout/cronspec-day-of-week-semantics",
                  "heldout/git-backport-rotation-fix", "pool/http-inventory-json-api",
                  "heldout/vendored-csv-patch-series"]


def test_shipped_tasks_pass(tmp_path):
    result = run_check(*(REPO / "tasks" / name for name in SHIPPED_SAMPLE), "--out", tmp_path / "out")
    assert result.returncode == 0, result.stdout[-3000:]
    report = json.loads((tmp_path / "out" / "check.json").read_text())
    assert report["passed"] == len(SHIPPED_SAMPLE) and all(t["flags"] == [] for t in report["tasks"])
    assert all(t["evaluator"]["forgery"] == 0.0 for t in report["tasks"])
