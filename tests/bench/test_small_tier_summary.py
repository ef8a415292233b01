"""bench/small_tier/summary.py: each arm's promoted functions judged by the ground truth, its held-out row,
its cost, and - for a null result - what stopped it."""

from __future__ import annotations

import copy
import json
import os
import shutil
import socket
import subprocess
import sys
from datetime import UTC, datetime

import pytest
from harbor.models.task.id import LocalTaskId
from harbor.models.trial.config import TaskConfig, TrialConfig
from harbor.models.trial.result import AgentInfo, ExceptionInfo, TrialResult
from testutil import REPO, load_script

from modularrsi.evolve.aggregate import Aggregation
from modularrsi.evolve.history import Change

summary = load_script("bench/small_tier/summary.py")

TRUTH = {"model": "openai/tiny", "simulated": False, "replayed": True, "tasks": 20, "k": 3, "seed": 0, "rows": [
    {"name": "gen_0", "tasks_up": 0, "tasks_down": 0, "p": 1.0, "delta_acc": 0.0},
    {"name": "json_repair", "tasks_up": 6, "tasks_down": 0, "p": 0.031, "delta_acc": 0.2},
    {"name": "loop_guard", "tasks_up": 1, "tasks_down": 1, "p": 1.0, "delta_acc": 0.0},
    {"name": "tail_window", "tasks_up": 0, "tasks_down": 5, "p": 0.0625, "delta_acc": -0.15}]}


def change(ident: str, outcome: str, files: list[str], editor: str = "llm-editor:openai/tiny", **fields) -> str:
    return Change(id=ident, lane=ident.split("/")[0], epoch=0, module=ident.split("/")[0], editor=editor,
                  outcome=outcome, files=files, **fields).model_dump_json()


def trial(run, name: str, start: str, end: str, cancelled: bool = False) -> None:
    path = run / "trials" / name / "result.json"
    path.parent.mkdir(parents=True)
    stamp = {"started_at": datetime.fromisoformat(f"2026-12-04T{start}:00+00:00"),
             "finished_at": datetime.fromisoformat(f"2026-12-04T{end}:00+00:00")}
    stop = ExceptionInfo(exception_type="CancelledError", exception_message="", exception_traceback="",
                         occurred_at=datetime.now(UTC)) if cancelled else None
    result = TrialResult(task_name=name.split("__")[0], trial_name=name, trial_uri=path.parent.as_uri(),
                         task_id=LocalTaskId(path=path.parent), task_checksum="0",
                         config=TrialConfig(task=TaskConfig(path=path.parent)),
                         agent_info=AgentInfo(name="modular-agent", version="0"), exception_info=stop, **stamp)
    path.write_text(result.model_dump_json())


def side(acc: float) -> dict:
    return {"acc": acc, "acc_ci95": [0.0, 1.0], "pass_at_k": 0.3, "pass_at_k_ci95": [0.0, 1.0], "pass_hat_k": 0.1,
            "pass_hat_k_ci95": [0.0, 1.0], "mean_steps": 7.0, "mean_steps_ci95": [5.0, 9.0], "generation": "g",
            "path": "p", "run": "r", "tokens": 1000, "cost_usd": 0.0, "invalid_attempts": 0}


def write_eval(path, diff: float, p: float, fixed: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "model": "openai/tiny", "simulated": False, "k": 3, "seed": 0, "tasks": 20, "baseline": side(0.2),
        "candidate": side(0.2 + diff), "attempt_pairs": 60, "fail_to_pass": 0, "pass_to_fail": 0,
        "sign_test_p": p, "wilcoxon_p": None, "flips": [],
        "deltas": [{"metric": "acc", "baseline": 0.2, "candidate": 0.2 + diff, "diff": diff,
                    "ci95": [diff - 0.1, diff + 0.1]}],
        "fixed": fixed, "broken": 0, "unchanged": 20 - fixed}))


def make_run(root, changes: list[str], directions: int = 1, heldout: dict | None = None):
    root.mkdir(parents=True)
    (root / "history.jsonl").write_text("\n".join(changes) + "\n")
    epoch = root / "lanes" / "tool_use" / "epoch_0"
    epoch.mkdir(parents=True)
    found = [{"id": f"tool_use.parse-repair.{i}", "module": "tool_use", "mechanism": "parse-repair", "summary": "s",
              "tasks": ["a", "b"], "findings": [], "vote": 1.0, "raw_support": 2} for i in range(directions)]
    (epoch / "directions.json").write_text(Aggregation(directions=found, dropped=[]).model_dump_json())
    (root / "budget.json").write_text(json.dumps({"spent": {"calls": 40, "tokens": 123456, "cost_usd": 0.0}}))
    trial(root, "a__a0", "10:00", "11:00")  # overlapping attempts count once, the idle gap not at all
    trial(root, "a__a1", "10:30", "11:30")
    trial(root, "a__a2", "12:00", "13:00", cancelled=True)  # cut by stopping the run: not an attempt
    trial(root / "eval" / "candidate", "b__a0", "14:00", "14:30")
    if heldout is not None:
        write_eval(root / "eval" / "eval.json", **heldout)
    return root


def test_promoted_functions_are_judged_by_their_mechanisms_row():
    assert summary.judge("tool_use/terminus_json_repair", TRUTH, 0.1)["verdict"] == "right"
    assert summary.judge("agent_loop/loop_guard", TRUTH, 0.1)["verdict"] == "inert"
    assert summary.judge("observation/tail_window", TRUTH, 0.1)["verdict"] == "harmful"
    assert summary.judge("observation/tail_window", TRUTH, 0.05)["verdict"] == "inert"  # not significant at 0.05
    assert summary.judge("tool_use/fix_my_json", TRUTH, 0.1)["verdict"].startswith("own mechanism")
    assert summary.judge("completion/evidence_check", TRUTH, 0.1)["verdict"] == "not in the ground truth"
    assert summary.judge("completion/evidence_check", None, 0.1)["verdict"] == "not measured"
    benched = TRUTH | {"rows": TRUTH["rows"] + [  # an arm's frozen library benched with --generation
        {"name": "my-arm", "tasks_up": 5, "tasks_down": 0, "p": 0.0625, "delta_acc": 0.1,
         "functions": {"context/summarize_on_pressure": "abc"}}]}
    own = summary.judge("context/summarize_on_pressure", benched, 0.1, "abc")
    assert own["verdict"] == "right" and own["tag"] == "own, benched as my-arm" and own["tasks_up"] == 5
    other = summary.judge("context/summarize_on_pressure", benched, 0.1, "abd")  # another edit of that function
    assert other["verdict"].startswith("own mechanism (no ground-truth row)")
    assert summary.judge("context/summarize_on_pressure", benched, 0.1)["verdict"].startswith("own mechanism")
    part_way = TRUTH | {"pending": ["evidence_check"]}  # a bench stopped before this mechanism's variant
    assert summary.judge("completion/evidence_check", part_way, 0.1)["verdict"] == "not measured"
    assert "Not measured yet: evidence_check" in summary.render({}, part_way, 0.1)


@pytest.mark.parametrize(("changes", "directions", "heldout", "stopped"), [
    ([], 0, None, "no direction"),
    ([change("tool_use/e0/d0-0", "editor_failed", [])], 1, None, "editor failure"),
    ([change("tool_use/e0/d0-0", "rejected", ["modules/tool_use/x.py"], rejected_by="execution")], 1, None,
     "gate rejection: nothing promoted (execution 1)"),
    ([change("tool_use/e0/d0-0", "promoted", ["modules/tool_use/x.py"])], 1, {"diff": 0.05, "p": 0.5, "fixed": 2},
     "no held-out effect: difference +0.050, sign test over tasks p = 0.5; at the rates seen (2 fixed, 0 broken "
     "of 20 tasks) about"),
    ([change("tool_use/e0/d0-0", "promoted", ["modules/tool_use/x.py"])], 1, None, "not evaluated yet"),
    ([change("tool_use/e0/d0-0", "promoted", ["modules/tool_use/x.py"])], 1, {"diff": 0.3, "p": 0.01, "fixed": 7},
     None),
])
def test_a_null_result_says_what_stopped_it(tmp_path, changes, directions, heldout, stopped):
    arm = summary.arm_summary(make_run(tmp_path / "run", changes, directions, heldout))
    assert arm["stopped_by"] == stopped if stopped is None else arm["stopped_by"].startswith(stopped)


def test_arms_are_collected_and_rendered_side_by_side_from_the_committed_results(tmp_path):
    llm = make_run(tmp_path / "evolve-llm", [
        change("tool_use/e0/d0-0", "promoted", ["manifest.json", "modules/tool_use/fix_my_json.py"]),
        change("tool_use/e0/d0-1", "rejected", ["modules/tool_use/y.py"], rejected_by="review")],
        heldout={"diff": 0.1, "p": 0.2, "fixed": 3})
    catalogue = make_run(tmp_path / "evolve-catalogue", [
        change("tool_use/e0/d0-0", "promoted", ["manifest.json", "modules/tool_use/terminus_json_repair.py"],
               editor="catalogue-editor"),
        change("completion/e0/d0-0", "promoted", ["modules/completion/evidence_check.py"], editor="catalogue-editor",
               fate="reverted by integration")],
        heldout={"diff": 0.3, "p": 0.004, "fixed": 8})
    truth, results = tmp_path / "mechanisms.json", tmp_path / "results"
    truth.write_text(json.dumps(TRUTH))

    def run(*arms):
        done = subprocess.run([sys.executable, str(REPO / "bench" / "small_tier" / "summary.py"), *arms,
                               "--mechanisms", str(truth), "--results", str(results)],
                              capture_output=True, text=True, timeout=120, cwd=REPO)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    run("--arm", f"llm={llm}", "--arm", f"catalogue={catalogue}", "--arm", f"later={tmp_path / 'none'}")
    arm = json.loads((results / "evolve-catalogue" / "arm.json").read_text())
    assert arm["catalogue_editor"] and arm["cost"] == {"trials": 3, "hours": 2.0, "tokens": 123456, "calls": 40}
    assert [c["functions"] for c in arm["promoted"]] == [["tool_use/terminus_json_repair"]]  # the reverted one left
    assert not (results / "evolve-later").exists()
    page = run()  # the runs are not needed to render again
    assert page == (results / "summary.md").read_text()
    rows = {line.split(" | ")[0].lstrip("| "): line for line in page.splitlines() if line.count(" | ") > 10}
    assert "catalogue editor (offline" in rows["catalogue"] and "llm-editor:openai/tiny" in rows["llm"]
    assert "+0.300 [+0.200, +0.400]" in rows["catalogue"] and "significant held-out gain" in rows["catalogue"]
    assert "no held-out effect" in rows["llm"]
    judged = [line for line in page.splitlines() if "terminus_json_repair" in line or "fix_my_json" in line]
    assert "| right | 6 / 0 | 0.031 |" in judged[0] and "own mechanism" in judged[1]
    assert "simulated" not in page and "sim model" not in page


def test_a_reevaluation_on_the_reselected_heldout_set_is_a_second_row_and_decides_what_stopped_it(tmp_path):
    run = make_run(tmp_path / "evolve-catalogue", [
        change("tool_use/e0/d0-0", "promoted", ["modules/tool_use/terminus_json_repair.py"],
               editor="catalogue-editor")],
        heldout={"diff": 0.03, "p": 0.5, "fixed": 2})
    results = tmp_path / "results"
    first = summary.arm_summary(run, results / "evolve-catalogue" / "heldout-eval.json")  # not written yet
    assert first["heldout_reselected"] is None
    assert first["stopped_by"].startswith("no held-out effect: difference +0.030")
    write_eval(results / "evolve-catalogue" / "heldout-eval.json", diff=0.25, p=0.016, fixed=7)
    arm = summary.arm_summary(run, results / "evolve-catalogue" / "heldout-eval.json")
    assert arm["heldout"]["sign_test_p"] == 0.5 and arm["heldout_reselected"]["fixed"] == 7
    assert arm["stopped_by"] is None
    rows = [line for line in summary.render({"catalogue": arm}, TRUTH, 0.1).splitlines()
            if line.startswith("| catalogue") and "editor" in line]
    assert len(rows) == 2 and "+0.030" in rows[0] and "see the next row" in rows[0]
    assert "(re-selected held-out set)" in rows[1] and "+0.250" in rows[1] and "significant held-out gain" in rows[1]
    older = {k: v for k, v in first.items() if k != "heldout_reselected"}  # an arm.json written before the field
    page = summary.render({"x": older}, TRUTH, 0.1)
    assert len([line for line in page.splitlines() if line.startswith("| x |") and "editor" in line]) == 1


def test_the_arms_on_the_reselected_set_are_one_family_judged_by_holm_adjusted_p_values(tmp_path):
    arms = {}
    for name, p, fixed in (("one", 0.031, 6), ("two", 0.5, 2)):
        run = make_run(tmp_path / f"evolve-{name}", [
            change("tool_use/e0/d0-0", "promoted", ["modules/tool_use/terminus_json_repair.py"],
                   editor="catalogue-editor")], heldout={"diff": 0.03, "p": 0.5, "fixed": 2})
        write_eval(tmp_path / "results" / f"evolve-{name}" / "heldout-eval.json", diff=0.1, p=p, fixed=fixed)
        arms[name] = summary.arm_summary(run, tmp_path / "results" / f"evolve-{name}" / "heldout-eval.json")
    assert arms["one"]["stopped_by"] is None  # alone, 6 / 0 is p = 0.031
    page = summary.render(arms, TRUTH, 0.1)
    row = next(line for line in page.splitlines() if line.startswith("| one (re-selected"))
    assert "| 0.031 (Holm 0.062) |" in row and "Holm-adjusted over the family of 2 arms on this set: 0.062" in row
    assert arms["one"]["stopped_by"].startswith("no held-out effect")
    assert arms["one"]["heldout_reselected"]["family"] == 2
    assert arms["two"]["heldout_reselected"]["holm_p"] == 0.5
    alone = summary.render({"one": arms["one"]}, TRUTH, 0.1)  # no family declared: the arms evaluated on the set
    assert "significant held-out gain" in alone and "Holm" not in alone.split("| one (re-selected")[1].split("\n")[0]
    # declared before the results, the family holds while a member is still running: it counts at p = 1
    early = summary.render({"one": arms["one"]}, TRUTH, 0.1, family=["one", "two"])
    row = next(line for line in early.splitlines() if line.startswith("| one (re-selected"))
    assert "| 0.031 (Holm 0.062) |" in row and "two not evaluated yet and counted at p = 1: 0.062" in row
    assert arms["one"]["heldout_reselected"]["pending"] == ["two"] and arms["one"]["stopped_by"] is not None
    assert "family of arms declared for that set (one, two)" in early
    strong = copy.deepcopy(arms["one"])
    strong["heldout_reselected"]["sign_test_p"] = 0.0156  # 7 / 0: even at the worst the pending arm can show
    summary.render({"one": strong}, TRUTH, 0.1, family=["one", "two"])
    assert strong["heldout_reselected"]["holm_p"] == 0.0312 and strong["stopped_by"] is None


def test_an_arm_sharing_anothers_draws_counts_only_its_own_trials(tmp_path):
    first = make_run(tmp_path / "evolve-catalogue", [])
    second = make_run(tmp_path / "evolve-llm", [])
    for name in ("a__a0", "a__a1", "a__a2"):  # the draws the second run copied in from the first
        shutil.rmtree(second / "trials" / name)
        shutil.copytree(first / "trials" / name, second / "trials" / name)
    assert summary.busy_hours(second) == (3, 2.0)  # nothing says it shares: every trial is its own
    (second / "config.yaml").write_text("share_from: somewhere/evolve-catalogue\n")  # started elsewhere
    assert summary.busy_hours(second) == (0, 0.0)  # its held-out trial too is the first's, to the instant
    trial(second, "a__a9", "15:00", "16:00")  # a trial of its own, named like none of the first's
    assert summary.busy_hours(second) == (1, 1.0)


def test_before_any_arm_has_run_the_page_says_so():
    page = summary.render({}, None, 0.1)
    assert "no arm has run yet" in page and "not measured yet" in page and "nothing promoted" not in page


@pytest.mark.parametrize(("name", "text", "said"), [
    ("eval/eval.json", '{"model": 1}', "eval.json: simulated: Field required"),
    ("history.jsonl", '{"id": "x"}\n', "history.jsonl: a line is not a Change"),
])
def test_a_run_file_that_does_not_fit_is_one_line_naming_it(tmp_path, name, text, said):
    run = make_run(tmp_path / "run", [], heldout={"diff": 0.1, "p": 0.5, "fixed": 1})
    (run / name).write_text(text)
    done = subprocess.run([sys.executable, str(REPO / "bench" / "small_tier" / "summary.py"), "--arm", f"x={run}",
                           "--results", str(tmp_path / "results")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert said in done.stderr and not (tmp_path / "results" / "evolve-x").exists()


def test_a_promoted_function_carries_its_content_hash_from_its_lane_generation(tmp_path):
    run = tmp_path / "evolve-own"
    make_run(run, [change("context/e0/d0-1", "promoted", ["manifest.json", "modules/context/summarize_on_pressure.py"],
                          promoted_as="gen_1")])
    generation = run / "lanes" / "context" / "gen_1"
    generation.mkdir(parents=True)
    (generation / "manifest.json").write_text(json.dumps({"functions": [
        {"module": "context", "name": "summarize_on_pressure", "sha256": "abc"},
        {"module": "tool_use", "name": "terminus_json", "sha256": "def"}]}))
    promoted = summary.arm_summary(run)["promoted"]
    assert promoted[0]["sha256"] == {"context/summarize_on_pressure": "abc"}  # what it wrote, not the whole library
    shutil.rmtree(generation)  # results re-rendered where the run is gone: no hash, judged as unbenched
    assert summary.arm_summary(run)["promoted"][0]["sha256"] == {}


def test_a_misspelt_family_member_is_one_line_naming_it(tmp_path):
    run = make_run(tmp_path / "run", [], heldout={"diff": 0.1, "p": 0.5, "fixed": 1})
    done = subprocess.run([sys.executable, str(REPO / "bench" / "small_tier" / "summary.py"), "--arm", f"x={run}",
                           "--results", str(tmp_path / "results"), "--family", "x", "catalogue-contxt"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith("error: --family catalogue-contxt: no such arm (neither --arm catalogue-contxt=RUN")
    assert not (tmp_path / "results" / "summary.md").exists()


def test_run_sh_summary_renders_the_committed_results_on_a_machine_without_the_model(tmp_path):
    """No server answers and no model is installed: the summary reads measured results only, so it neither
    starts nor waits for a server, and the committed results render to the committed page."""
    committed = REPO / "bench" / "small_tier" / "results"
    shutil.copytree(committed, tmp_path / "results", ignore=shutil.ignore_patterns("carry"))
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "SMALL_TIER_OUT": str(tmp_path / "runs"), "SMALL_TIER_RESULTS": str(tmp_path / "results"),
           "SMALL_TIER_PORT": str(port), "LOCAL_MODEL_HOME": str(tmp_path / "no-model")}
    done = subprocess.run(["bash", str(REPO / "bench" / "small_tier" / "run.sh"), "summary"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=900)  # a hang guard only
    assert done.returncode == 0, done.stderr[-3000:]
    assert not (tmp_path / "runs" / "server.log").exists()
    assert (tmp_path / "results" / "summary.md").read_text() == (committed / "summary.md").read_text()
