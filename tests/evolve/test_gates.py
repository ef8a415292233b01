"""The three gates on hand-made proposals: staging generations copied from gen_0 with one file edited."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from staging import staged
from testutil import QUIT_EARLY, REPO

from modularrsi.evolve.gates.constructs import ConstructRules, construct_problems
from modularrsi.evolve.gates.execution import ExecutionConfig, ExecutionGate, Pair, Sample, decide
from modularrsi.evolve.gates.power import Scenario, acceptance_rate
from modularrsi.evolve.gates.prescreen import PrescreenRules, is_round, task_specific_path
from modularrsi.evolve.gates.review import ReviewGate
from modularrsi.evolve.gates.static import StaticConfig, StaticGate, consistency_problem, scope_problem
from modularrsi.evolve.gates.stats import sign_flip_p, task_sign_test_p
from modularrsi.evolve.proposal import Proposal
from modularrsi.harness import BASELINE
from modularrsi.harness.library import load_generation, read_sources, write_generation
from modularrsi.models.scripted import ScriptedModel
from modularrsi.rollouts.config import RunConfig

POOL = REPO / "tasks" / "pool"
POOL_NAMES = sorted(p.name for p in POOL.iterdir() if p.is_dir())
EVIDENCE = ["cfgkit-multilevel-extends", "crm-contacts-dedup-by-email", "textkit-slugify-accents", "argparse-logq-cli"]
BASE = load_generation(BASELINE)
SOURCES = read_sources(BASE)
OBS = SOURCES["observation/limit_output"]
GOOD = ("Lowers the observation budget to 8 KB because long terminal dumps crowd the context, so the agent "
        "keeps more of its plan in view.")


def written(tmp_path: Path, edits: dict[str, str], name: str = "staging") -> Path:
    """A valid staging generation written the way an editor should: library.write_generation."""
    write_generation(tmp_path / name, {**SOURCES, **edits}, BASE.default_active(), [BASE.id], "test")
    return tmp_path / name


def proposal(staging: Path, module: str = "observation", description: str = GOOD, direction: str = "",
             tasks: list[str] | None = None) -> Proposal:
    return Proposal.build(module, BASELINE, staging, description, direction or "Long outputs crowd the context.",
                          tasks or [])


def shape_with(line: str, prefix: str = "") -> str:
    return prefix + OBS.replace("    limit = ", f"    {line}\n    limit = ")


# ----------------------------------------------------------------------------------------------- static


@pytest.mark.parametrize("edit, stage, needle", [
    (OBS.replace("def shape(output, ctx):", "def shape(output, ctx)"), "parse", "syntax error"),
    ("import subprocess\n" + OBS, "constructs", "forbidden import 'subprocess'"),
    ("import zipfile\n" + OBS, "constructs", "forbidden import 'zipfile'"),
    (shape_with("ctx.memo['probe'] = 'cat /tests/test.sh'"), "constructs", "'/tests'"),
    (shape_with("asyncio.create_subprocess_shell('ls')", "import asyncio\n"), "constructs",
     "forbidden import 'asyncio'"),
    (shape_with("ctx.memo['p'] = re.Popen('ls')"), "constructs", "'.Popen'"),
])
async def test_static_gate_refuses_bad_source_before_any_subprocess(tmp_path, edit, stage, needle):
    verdict = await StaticGate().check(proposal(staged(tmp_path, {"observation/limit_output": edit})))
    assert not verdict.passed and verdict.details["stage"] == stage and needle in verdict.reason
    assert verdict.details["file"] == "modules/observation/limit_output.py"


async def test_static_gate_refuses_a_change_outside_the_locked_module(tmp_path):
    ctx_source = SOURCES["context/summarize_on_pressure"].replace("8000", "6000")
    verdict = await StaticGate().check(proposal(staged(tmp_path, {"context/summarize_on_pressure": ctx_source})))
    assert not verdict.passed and verdict.details["stage"] == "scope"
    assert "modules/context/summarize_on_pressure.py is outside modules/observation/" in verdict.reason


def test_a_new_active_function_in_the_locked_module_is_in_scope(tmp_path):
    extra = OBS.replace("10000", "2000").replace("Keeps terminal output", "A tighter variant. Keeps terminal output")
    active = {**BASE.default_active(), "observation": ["limit_2k", "limit_output"]}
    write_generation(tmp_path / "gen", {**SOURCES, "observation/limit_2k": extra}, active, [BASE.id], "test")
    change = proposal(tmp_path / "gen")
    assert change.changed_files == ["manifest.json", "modules/observation/limit_2k.py"]
    assert consistency_problem(change) is None and scope_problem(change) is None
    assert scope_problem(change.model_copy(update={"locked_module": "context"})).details["stage"] == "scope"


async def test_static_gate_refuses_manifest_edits_of_other_modules(tmp_path):
    def retune_context(manifest):
        next(e for e in manifest["functions"] if e["module"] == "context")["parameters"] = {"screen_chars": 9}

    staging = staged(tmp_path, {"observation/limit_output": OBS.replace("10000", "8000")}, retune_context)
    verdict = await StaticGate().check(proposal(staging))
    assert not verdict.passed and verdict.details["stage"] == "scope"
    assert "function entry context/summarize_on_pressure changed" in verdict.reason


async def test_static_gate_refuses_a_proposal_that_misreports_its_change(tmp_path):
    honest = proposal(staged(tmp_path, {"observation/limit_output": OBS.replace("10000", "8000")}))
    liar = honest.model_copy(update={"changed_files": ["modules/observation/limit_output.py"]})
    verdict = await StaticGate().check(liar)
    assert not verdict.passed and verdict.details["stage"] == "consistency" and "changed_files" in verdict.reason


async def test_static_gate_refuses_an_unsealed_manifest(tmp_path):
    staging = staged(tmp_path / "u", {"observation/limit_output": OBS.replace("10000", "8000")}, reseal=False)
    verdict = await StaticGate().check(proposal(staging))
    assert not verdict.passed and "is not the content hash" in verdict.reason


async def test_static_gate_import_stage_passes_good_code_and_catches_crashes_and_hangs(tmp_path):
    good = proposal(written(tmp_path / "a", {"observation/limit_output": OBS.replace("10000", "8000")}))
    crash = proposal(staged(tmp_path / "b", {"observation/limit_output": OBS + "\nraise RuntimeError('boom')\n"}))
    hang = proposal(staged(tmp_path / "c", {"observation/limit_output": OBS + "\nwhile True:\n    pass\n"}))
    short = StaticGate(StaticConfig(import_timeout_s=2))
    ok, crashed, hung = await asyncio.gather(StaticGate().check(good), StaticGate().check(crash), short.check(hang))
    sealed = json.loads((good.staging_dir / "manifest.json").read_text())["id"]
    assert ok.passed and ok.details["generation_id"] == sealed
    assert not crashed.passed and crashed.details["stage"] == "import"
    assert "fails on import: RuntimeError: boom" in crashed.reason
    assert not hung.passed and hung.details["stage"] == "import" and "did not finish within 2 s" in hung.reason
    assert not list(crash.staging_dir.rglob("__pycache__"))  # the subprocess writes no byte code into staging


@pytest.mark.parametrize("source, needle", [
    ("async def f(ctx):\n    return await ctx.terminal.exec('ls -la')\n", None),
    ('def f():\n    """Never reads /tests or the reward."""\n    return 1\n', None),
    ("def f(p):\n    return p.read_text()\n", "'.read_text'"),
    ("def f(x):\n    return x.system('ls')\n", "forbidden attribute '.system'"),
    ("S = 'bash /solution/solve.sh'\n", "'/solution'"),
    ("S = f'{1}: /logs/verifier/reward.txt'\n", "'reward'"),
])
def test_banned_constructs(source, needle):
    import ast

    problems = [p for _, p in construct_problems(ast.parse(source), ConstructRules())]
    assert (needle is None and not problems) or (needle and any(needle in p for p in problems)), problems


def test_baseline_functions_use_no_banned_construct():
    import ast

    for key, source in SOURCES.items():
        assert construct_problems(ast.parse(source), ConstructRules()) == [], key


# ----------------------------------------------------------------------------------------------- review


@pytest.mark.parametrize("path, hit", [
    ("/app", False), ("/tmp/x", False), ("/tmp/harness_out.log", False), ("/usr/bin/python3", False),
    ("/dev/null", False), ("ms/step", False), ("a / b", False), ("/app/contacts.csv", True),
    ("/workspace/src", True), ("/etc/nginx/nginx.conf", True), ("'\\n/app/x'", True),
])
def test_task_specific_path_rule(path, hit):
    assert (task_specific_path(path, PrescreenRules()) is not None) == hit


@pytest.mark.parametrize("value, round_", [
    (4217, False), (4000, True), (0.25, True), (0.333, False), (4096, True), (127, True), (3.14159, False),
    (-1, True), (10, True), (1234, False),
])
def test_round_numbers(value, round_):
    assert is_round(value, PrescreenRules()) == round_


@pytest.mark.parametrize("edit, description, rule", [
    (shape_with("# tuned on crm-contacts-dedup-by-email"), GOOD, "task_name"),
    (shape_with("hint = 'see /app/contacts.csv'"), GOOD, "path"),
    (shape_with("if len(output) == 4217:\n        return output"), GOOD, "magic_constant"),
    (OBS.replace("10000", "8000"), GOOD + " It raises the reward on failing tasks.", "outcome"),
    (OBS.replace("10000", "8000"), "", "description"),
    (OBS.replace("10000", "8000"), "Changes the observation limit to a different number of bytes here.",
     "description"),
])
async def test_prescreen_rejects_task_specific_changes_without_calling_the_reviewer(tmp_path, edit, description,
                                                                                   rule):
    reviewer = ScriptedModel([])
    staging = written(tmp_path, {"observation/limit_output": edit})
    verdict = await ReviewGate(reviewer, POOL_NAMES).check(proposal(staging, description=description))
    assert not verdict.passed and verdict.details == {"stage": "prescreen", "rule": rule}, verdict
    assert reviewer.calls == []


@pytest.mark.parametrize("answer, passed, reason, calls", [
    ('{"approve": true, "reason": "a generic budget change with a concrete cause"}', True, "generic budget", 1),
    ('```json\n{"approve": false, "reason": "tuned to one task"}\n```', False, "tuned to one task", 1),
    ("Looks fine to me.", False, "unparseable after 2 tries: no JSON object", 2),
    ('{"approve": "yes", "reason": "ok"}', False, "unparseable after 2 tries: 'approve' must be true or false", 2),
])
async def test_reviewer_decides_after_the_prescreen(tmp_path, answer, passed, reason, calls):
    reviewer = ScriptedModel([answer, answer])  # an off-format answer is shown back once, then rejected
    staging = written(tmp_path, {"observation/limit_output": OBS.replace("10000", "8000")})
    verdict = await ReviewGate(reviewer, POOL_NAMES).check(proposal(staging))
    assert verdict.passed == passed and reason in verdict.reason and len(reviewer.calls) == calls


async def test_without_a_reviewer_the_prescreen_decides(tmp_path):
    staging = written(tmp_path, {"observation/limit_output": OBS.replace("10000", "8000")})
    verdict = await ReviewGate(None, POOL_NAMES).check(proposal(staging))
    assert verdict.passed and "no reviewer model" in verdict.reason


async def test_review_is_reward_blind(tmp_path):
    direction = ("Agents on crm-contacts-dedup-by-email stop after dumping huge files (reward 0 on 2/3 attempts, "
                 "pass rate 33%).\nLong terminal dumps crowd out the plan.\n"
                 "Test expects: assert rows == 4217 in /tests/test_outputs.py")
    reviewer = ScriptedModel(['{"approve": true, "reason": "fine"}'])
    staging = written(tmp_path, {"observation/limit_output": OBS.replace("10000", "8000")})
    change = proposal(staging, direction=direction, tasks=["crm-contacts-dedup-by-email", "argparse-logq-cli"])
    assert (await ReviewGate(reviewer, POOL_NAMES).check(change)).passed
    seen = "\n".join(m.content for m in reviewer.calls[0]).lower()
    for planted in ("reward", "pass rate", "2/3", "33%", "assert", "4217", "/tests", "test_outputs", "crm-contacts",
                    "argparse-logq-cli"):
        assert planted not in seen, planted
    assert "long terminal dumps crowd out the plan" in seen and "+PARAMETERS = {\"max_bytes\": 8000}".lower() in seen
    assert GOOD.lower() in seen


# -------------------------------------------------------------------------------------------- execution


def tasks(table: str, prefix: str = "t") -> list[Pair]:
    """Pairs from a table such as "01.00 11.10": one word per task, its attempts separated by dots, each
    attempt written as (parent outcome, staging outcome)."""
    return [Pair(task=f"{prefix}{t}", attempt=i, parent=c[0] == "1", staging=c[1] == "1")
            for t, word in enumerate(table.split()) for i, c in enumerate(word.split("."))]


@pytest.mark.parametrize("evidence, anchors, config, passed, needle", [
    ("01.00 01.00 01.00 01.00", "11 11", {}, True, "p=0.0625"),
    ("01.00 01.00 01.00", "11 11", {}, False, "3 evidence tasks cannot reach it, 4 needed"),
    ("01 01 01 01 01 10", "11", {}, False, "p=0.109"),
    ("01 01 01 01 01 01 10", "11", {}, True, "p=0.0625"),
    # magnitudes count: four tasks gain a whole attempt, one loses a third (a sign test would say 0.19)
    ("01 01 01 01 10.00.00", "11", {}, True, "p=0.0625"),
    ("01 01 01 01", "11 10", {}, False, "1 anchor regression(s) > 0 allowed"),
    ("01 01 01 01", "11 10", {"max_anchor_regressions": 1}, True, "anchor tasks worsened 1 of 2"),
    ("00 11 00 11 11 00", "11", {}, False, "evidence does not move (p=1"),
    ("01 01 01 01", "", {"alpha": 0.05}, False, "5 needed"),
    # eight fail→pass flips from one task are one task's evidence, not eight (p=0.0039 over attempts)
    ("01.01.01.01.01.01.01.01", "11", {}, False, "p=0.5"),
])
def test_execution_decision_rule_counts_tasks_not_attempts(evidence, anchors, config, passed, needle):
    verdict = decide(tasks(evidence, "ev"), tasks(anchors, "an"), ExecutionConfig(**config))
    assert verdict.passed == passed and needle in verdict.reason, verdict.reason


def test_sign_flip_test_is_exact_over_tasks():
    assert sign_flip_p([1, 1, 1, 1]) == pytest.approx(1 / 16)
    assert sign_flip_p([1, 1, 1, 1, 1, -1]) == pytest.approx(7 / 64)
    assert sign_flip_p([0, 0]) == 1.0 and sign_flip_p([-1, -1, -1]) == 1.0
    assert sign_flip_p([1, 1, 1, 1], alternative="two-sided") == pytest.approx(2 / 16)
    many = sign_flip_p([1.0] * 20)  # beyond exact enumeration: a seeded Monte Carlo p, never below 1/(1+draws)
    assert 0 < many < 1e-3 and many == sign_flip_p([1.0] * 20)
    assert task_sign_test_p(3, 1) == pytest.approx(0.625) and task_sign_test_p(0, 0) == 1.0


@pytest.mark.parametrize("scenario, low, high", [
    (Scenario(anchors=0), 0.0, 0.1),        # a change that does nothing, the evidence test alone
    (Scenario(), 0.0, 0.1),                 # ... with the anchor rule on top
    (Scenario(anchors=0, reuse_sample=True), 0.1, 1.0),  # parent = the sample evidence was chosen from
    (Scenario(anchors=0, effect=0.75), 0.8, 1.0),       # a change that removes 3/4 of the failures
    (Scenario(effect=1.0), 0.9, 1.0),
])
def test_gate_acceptance_over_400_simulated_decisions(scenario, low, high):
    """A null change is accepted at no more than alpha; the old design (parent side = the epoch sample
    the failing evidence tasks were picked from) exceeds it; a real improvement is accepted."""
    rate = acceptance_rate(scenario, 400, seed=1)
    assert low <= rate <= high, rate


async def test_execution_gate_runs_both_sides_fresh_and_can_accept_as_well_as_reject(tmp_path):
    """Same sample (4 evidence tasks, 1 anchor, k=1) both ways: gen_0 → a loop that quits after one
    reply is rejected; that loop → gen_0 is accepted. A gate that never (or always) accepts fails."""
    harmful = written(tmp_path, {"agent_loop/turn_loop": QUIT_EARLY}, "harmful")
    sample = Sample(evidence=[POOL / t for t in EVIDENCE], anchors=[POOL / "rotate-app-logs-retention"])
    gate = ExecutionGate(RunConfig(concurrency=4, model="sim:perfect"), tmp_path / "gates", ExecutionConfig(k=1))
    worse = await gate.check(Proposal.build("agent_loop", BASELINE, harmful, GOOD, "loops", []), sample)
    better = await gate.check(Proposal.build("agent_loop", harmful, BASELINE, GOOD, "loops", []), sample)
    print(f"\nregression: {worse.reason}\nrepair: {better.reason}")
    assert not worse.passed and worse.details["evidence"]["worsened"] == 4 and worse.details["simulated"]
    assert better.passed and better.details["evidence"]["improved"] == 4, better.reason
    assert worse.details["seed"] == ExecutionConfig(k=1).run_seed != 0  # fresh attempts, not seed 0's sample
    runs = {side: Path(path) for side, path in worse.details["runs"].items()}
    assert set(runs) == {"parent", "staging"} and all((r / "results.json").is_file() for r in runs.values())
    finished = {p: p.stat().st_mtime_ns for p in tmp_path.glob("gates/*/*/trials/*/result.json")}
    assert len(finished) == 4 * 5  # two proposals × two sides × five tasks
    again = await gate.check(Proposal.build("agent_loop", BASELINE, harmful, GOOD, "loops", []), sample)
    assert again.details["evidence"] == worse.details["evidence"]  # resumable: finished attempts reused
    assert {p: p.stat().st_mtime_ns for p in finished} == finished
