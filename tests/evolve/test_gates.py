"""The three gates on hand-made proposals: staging generations copied from gen_0 with one file edited."""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from staging import staged
from testutil import QUIT_EARLY, REPO

from modularrsi.evolve.config import EvolveConfig, describe
from modularrsi.evolve.context import RunContext
from modularrsi.evolve.gates import GateVerdict
from modularrsi.evolve.gates.carried import Carried
from modularrsi.evolve.gates.constructs import ConstructRules, construct_problems
from modularrsi.evolve.gates.execution import ExecutionConfig, ExecutionGate, Pair, Sample, ScreenPlan, decide
from modularrsi.evolve.gates.power import BENCH, HARMFUL, INERT, NET_HARMFUL, net_effect, simulate
from modularrsi.evolve.gates.prescreen import PrescreenRules, is_round, task_specific_path
from modularrsi.evolve.gates.review import ReviewGate
from modularrsi.evolve.gates.sequential import ConfirmRule, Tally, confirm_rule, screen_rule
from modularrsi.evolve.gates.static import StaticConfig, StaticGate, consistency_problem, scope_problem
from modularrsi.evolve.gates.stats import task_sign_test_p
from modularrsi.evolve.layout import ProposalLayout
from modularrsi.evolve.proposal import Proposal, manifest_id
from modularrsi.harness import BASELINE
from modularrsi.harness.library import load_generation, read_sources, write_generation
from modularrsi.offline.scripted import ScriptedModel
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.run import execute

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


def tasks(table: str, prefix: str = "t", round_: int = 0) -> list[Pair]:
    """Pairs from a table such as "01.00 11.10": one word per task, its attempts separated by dots, each
    attempt written as (parent outcome, staging outcome)."""
    return [Pair(task=f"{prefix}{t}", attempt=i, parent=c[0] == "1", staging=c[1] == "1", round=round_)
            for t, word in enumerate(table.split()) for i, c in enumerate(word.split("."))]


def test_screen_needs_a_fixed_failure_and_more_fixes_than_breaks():
    assert screen_rule(tasks("01.00 00", "ev") + tasks("11 11", "an")).passed
    assert not screen_rule(tasks("00.00 00", "ev") + tasks("11 11", "an")).passed  # fixes nothing
    assert not screen_rule(tasks("01 00", "ev") + tasks("10 11", "an")).passed     # breaks as much as it fixes
    result = screen_rule(tasks("01.01 00 01", "ev") + tasks("10", "an"))
    assert (result.fixes, result.breaks, result.fixed_tasks, result.score) == (3, 1, ["ev0", "ev2"], (2, 3))


RULE = ConfirmRule(alpha=0.2, beta=0.2, p1=0.9, max_rounds=3, min_rounds=2, min_improved_tasks=1, anchor_weight=2)


@pytest.mark.parametrize("rounds, rule, decision, needle", [
    # three fixes reach 1/alpha = 5 (1.8^3 = 5.83), but not before the second round
    ([("01.01.01", "11")], RULE, "continue", None),
    ([("01.01.01", "11"), ("00.00.00", "11")], RULE, "accept", "3 fix(es), 0 break(s)"),
    # one task's flips are not two tasks' evidence when two improved tasks are asked for
    ([("01.01.01", "11"), ("01.00.00", "11")], RULE.model_copy(update={"min_improved_tasks": 2}), "continue", None),
    # a break on an anchor counts twice: 3 fixes and 1 anchor break are log LR 3·0.59 − 2·1.61 < 0
    ([("01.01.01", "10"), ("00.00.00", "11")], RULE, "reject", "1 on anchors"),
    # nothing discordant: undecided at the cap, not accepted
    ([("00.00.00", "11")] * 3, RULE, "undecided", "0 fix(es)"),
    ([("10.00.00", "11")], RULE, "reject", None),
])
def test_confirm_is_a_sequential_test_over_discordant_pairs(rounds, rule, decision, needle):
    pairs = [p for r, (ev, an) in enumerate(rounds) for p in tasks(ev, "ev", r) + tasks(an, "an", r)]
    got, tally = decide(pairs, ["an0"], rule)
    assert got == decision, tally
    if needle:
        summary = f"{tally.b} fix(es), {tally.c} break(s) ({tally.anchor_c} on anchors)"
        assert needle in summary, summary


def test_rounds_without_a_discordant_pair_stop_the_confirm_undecided():
    """A change that moves nothing on fresh pairs for ``quiet_rounds`` rounds in a row stops undecided before
    the cap (its statistic carried); one discordant pair resets the count; a resumed tally starts quiet at 0."""
    quiet = RULE.model_copy(update={"max_rounds": 6, "quiet_rounds": 2})
    still = [("00.00.00", "11")] * 2
    got, tally = decide([p for r, (ev, an) in enumerate(still) for p in tasks(ev, "ev", r) + tasks(an, "an", r)],
                        ["an0"], quiet)
    assert (got, tally.rounds, tally.quiet) == ("undecided", 2, 2)
    moving = [("00.00.00", "11"), ("01.00.00", "11"), ("00.00.00", "11"), ("00.00.00", "11")]
    got, tally = decide([p for r, (ev, an) in enumerate(moving) for p in tasks(ev, "ev", r) + tasks(an, "an", r)],
                        ["an0"], quiet)
    assert (got, tally.rounds, tally.b) == ("undecided", 4, 1)
    assert tally.resumed().quiet == 0
    assert confirm_rule(tally, RULE.model_copy(update={"max_rounds": 6})) == "continue"  # None: only the cap


async def test_a_quiet_confirm_says_why_it_stopped(tmp_path):
    """An inert change confirmed without a screen: no pair is discordant, so it stops after quiet_rounds
    rounds (not at the cap), undecided, and the verdict says so."""
    sample = Sample(evidence=[POOL / t for t in EVIDENCE[:2]])
    inert = Proposal.build("agent_loop", BASELINE, BASELINE, GOOD, "nothing", [])
    config = FAST.model_copy(update={"max_rounds": 5, "quiet_rounds": 2})
    verdict = await ExecutionGate(RunConfig(concurrency=4, model="sim:perfect"), tmp_path / "g", config).check(
        inert, sample)
    assert not verdict.passed and verdict.details["decision"] == "undecided" and verdict.details["rounds"] == 2
    assert "no discordant pair in 2 rounds in a row" in verdict.reason


def test_an_undecided_tally_goes_on_and_gets_a_new_cap():
    first, tally = decide(tasks("01.00.00", "ev") + tasks("11", "an"), ["an0"],
                          RULE.model_copy(update={"max_rounds": 1}))
    assert first == "undecided" and tally.b == 1
    later, resumed = decide(tasks("01.01.00", "ev", 0) + tasks("11", "an", 0), ["an0"], RULE, carried=tally)
    assert later == "accept" and (resumed.b, resumed.rounds, resumed.carried) == (3, 1, 1)


def pair_factor(parent: bool, staging: bool, anchors: list[str], p1: float, weight: float) -> float:
    """The code's own likelihood-ratio factor of one pair."""
    one = Tally().add([Pair(task="t", attempt=0, parent=parent, staging=staging)], anchors)
    return math.exp(one.log_lr(p1, weight))


def test_the_likelihood_ratio_is_a_supermartingale_under_the_null():
    """Under "no pair is more likely fixed than broken" the expected LR factor of a pair is at most 1
    (Ville's inequality then bounds P(ever accept) by alpha); an anchor weight ≥ 1 keeps it so."""
    for p1, weight in ((0.6, 1.0), (0.9, 1.0), (0.9, 2.0), (0.95, 3.0)):
        for fix, brk in ((0.1, 0.1), (0.05, 0.2), (0.3, 0.3)):
            for anchor in (False, True):
                args = (["t"] if anchor else [], p1, weight)
                factor = (fix * pair_factor(False, True, *args) + brk * pair_factor(True, False, *args)
                          + (1 - fix - brk) * pair_factor(True, True, *args))
                assert factor <= 1 + 1e-12, (p1, weight, fix, brk, anchor)


@pytest.mark.parametrize("label, scenario, low, high", [
    ("does nothing (coupled)", INERT, 0.0, 0.2),
    ("does nothing (uncoupled)", replace(INERT, coupling=0.0), 0.0, 0.2),
    ("does nothing (uncoupled, no screen)", replace(INERT, coupling=0.0, screen=False), 0.0, 0.2),
    ("harmful", HARMFUL, 0.0, 0.2),
    ("net-harmful mix", NET_HARMFUL, 0.0, 0.2),
    ("fixes 35% on the bench preset", replace(BENCH, fix=0.35), 0.45, 1.0),
])
def test_gate_operating_characteristics_over_400_simulated_decisions(label, scenario, low, high):
    """The gate's own rules on 400 simulated decisions each (sim defaults, alpha 0.2): a change that does
    nothing is accepted at most at alpha, a net-harmful mix at most 0.2, a change that fixes 35 % of the
    failures on the tasks its mode touches at least 0.45 of the time."""
    rule = ExecutionConfig().rule(simulated=True)
    assert rule.alpha == 0.2
    outcome = simulate(scenario, rule, 400, seed=1)
    assert low <= outcome.accepted <= high, (label, outcome)
    assert net_effect(NET_HARMFUL) < 0 < net_effect(replace(BENCH, fix=0.35))


def test_defaults_differ_for_sim_and_real_models_and_are_printed():
    sim, real = ExecutionConfig().rule(True), ExecutionConfig().rule(False)
    assert (sim.alpha, sim.max_rounds, sim.min_improved_tasks) == (0.2, 6, 1)
    assert (real.alpha, real.max_rounds, real.min_improved_tasks) == (0.1, 4, 2)
    assert ExecutionConfig(alpha=0.05).rule(True, alpha_share=0.5).alpha == pytest.approx(0.025)
    printed = "\n".join(describe())
    assert "default 0.2 for sim, 0.1 otherwise" in printed and "candidates: 2" in printed


FAST = ExecutionConfig(k=1, steer_attempts=1, min_rounds=1)


async def test_execution_gate_confirms_fresh_pairs_and_can_accept_as_well_as_reject(tmp_path):
    """Same sample (4 evidence tasks, 1 anchor) both ways, no screen: gen_0 → a loop that quits after one
    reply is rejected; that loop → gen_0 is accepted. A gate that never (or always) accepts fails."""
    harmful = written(tmp_path, {"agent_loop/turn_loop": QUIT_EARLY}, "harmful")
    sample = Sample(evidence=[POOL / t for t in EVIDENCE], anchors=[POOL / "rotate-app-logs-retention"])
    gate = ExecutionGate(RunConfig(concurrency=4, model="sim:perfect"), tmp_path / "gates", FAST)
    worse = await gate.check(Proposal.build("agent_loop", BASELINE, harmful, GOOD, "loops", []), sample)
    better = await gate.check(Proposal.build("agent_loop", harmful, BASELINE, GOOD, "loops", []), sample)
    print(f"\nregression: {worse.reason}\nrepair: {better.reason}")
    assert not worse.passed and worse.details["decision"] == "reject" and worse.details["c"] == 5
    assert better.passed and better.details["b"] == 5 and better.details["improved_tasks"] == 5, better.reason
    assert worse.details["seed"] == FAST.run_seed != 0 and worse.details["simulated"]
    rule = ConfirmRule.model_validate(better.details["rule"])
    pairs = [Pair.model_validate(p) for p in better.details["pairs_detail"]]
    assert decide(pairs, better.details["anchor_tasks"], rule)[0] == "accept"  # the rule, recomputed
    staging = Path(better.details["runs"]["staging"])
    replay = yaml.safe_load((staging / "config.yaml").read_text())["replay_cache"]
    assert replay == str(Path(better.details["runs"]["parent"]) / "cache.sqlite")  # staging replays the parent
    finished = {p: p.stat().st_mtime_ns for p in tmp_path.glob("gates/*/*/trials/*/result.json")}
    assert len(finished) == 4 * 5  # two proposals × two sides × five tasks, one round each
    again = await gate.check(Proposal.build("agent_loop", BASELINE, harmful, GOOD, "loops", []), sample)
    assert (again.details["b"], again.details["c"]) == (worse.details["b"], worse.details["c"])  # resumable
    assert {p: p.stat().st_mtime_ns for p in finished} == finished


async def test_replay_screen_stops_an_inert_change_cheaply_and_steers_a_repair(tmp_path):
    """The epoch sample of a broken loop fails every attempt. Replaying those attempts, a change that does
    nothing fixes none and is rejected without a confirm; the repair fixes them, and its confirm runs on
    the fixed tasks only. Under sim both sides of a pair share the seed, so an inert change never flips."""
    broken = written(tmp_path, {"agent_loop/turn_loop": QUIT_EARLY}, "broken")
    inert = written(tmp_path, {"agent_loop/turn_loop": QUIT_EARLY + "\n# a comment changes nothing\n"}, "inert")
    epoch = RunConfig(tasks=[POOL / t for t in EVIDENCE[:2]], generation=broken, model="sim:perfect", k=2,
                      concurrency=4, seed=7)
    known = await execute(epoch, tmp_path / "epoch")
    assert known.overall.acc == 0
    plan = ScreenPlan(seed=7, failing={t: [0, 1] for t in EVIDENCE[:2]}, anchors=[])
    sample = Sample(evidence=[POOL / t for t in EVIDENCE[:2]], screen=plan)
    gate = ExecutionGate(RunConfig(concurrency=4, model="sim:perfect"), tmp_path / "gates", FAST)
    stopped = await gate.check(Proposal.build("agent_loop", broken, inert, GOOD, "loops", []), sample, known)
    assert not stopped.passed and stopped.details["stage"] == "screen" and stopped.details["fixes"] == 0
    assert "fixes no diagnosed failure" in stopped.reason
    assert not (gate.root(Proposal.build("agent_loop", broken, inert, GOOD, "loops", [])) / "staging").exists()
    repaired = await gate.check(Proposal.build("agent_loop", broken, BASELINE, GOOD, "loops", []), sample, known)
    assert repaired.passed and repaired.details["screen"]["fixes"] == 4, repaired.reason
    assert set(repaired.details["per_task"]) == set(EVIDENCE[:2])


async def test_parent_runs_are_shared_between_proposals_with_one_parent(tmp_path):
    """Two proposals on one parent at one gate seed: the parent side of each (task, attempt) runs once."""
    config = EvolveConfig(tasks=[POOL / t for t in EVIDENCE[:2]], model="sim:perfect", concurrency=4,
                          gates={"execution": {"steer_attempts": 1, "min_rounds": 1}})
    evo = RunContext(config, tmp_path / "run")
    harmful = written(tmp_path, {"agent_loop/turn_loop": QUIT_EARLY}, "harmful")
    other = written(tmp_path, {"agent_loop/turn_loop": QUIT_EARLY + "\n# another\n"}, "other")
    sample = Sample(evidence=[POOL / t for t in EVIDENCE[:2]])
    for i, staging in enumerate((harmful, other)):
        gate = evo.execution_gate(ProposalLayout(tmp_path / f"p{i}"), seed=3)
        verdict = await gate.check(Proposal.build("agent_loop", BASELINE, staging, GOOD, "loops", []), sample)
        assert verdict.details["decision"] == "reject" and verdict.details["runs"]["parent"].startswith(
            str(tmp_path / "run" / "samples"))
    parent_trials = list((tmp_path / "run" / "samples").glob("*/trials/*/result.json"))
    assert len(parent_trials) == 2  # two tasks, one round, run once for both proposals


async def test_an_undecided_confirm_carries_its_statistic(tmp_path):
    """At a cap of one round a repair's 2 fixes do not reach 1/alpha: undecided, kept; checked again (as a
    later epoch would, on fresh seeds) it goes on from the kept statistic and is accepted."""
    broken = written(tmp_path, {"agent_loop/turn_loop": QUIT_EARLY}, "broken")
    sample = Sample(evidence=[POOL / t for t in EVIDENCE[:2]])
    carry = tmp_path / "undecided.json"
    config = FAST.model_copy(update={"max_rounds": 1, "alpha": 0.1})
    repair = Proposal.build("agent_loop", broken, BASELINE, GOOD, "loops", [])
    gate = ExecutionGate(RunConfig(concurrency=4, model="sim:perfect"), tmp_path / "g1", config, carry_path=carry)
    first = await gate.check(repair, sample)
    assert first.details["decision"] == "undecided" and "statistic kept" in first.reason
    assert json.loads(carry.read_text())  # kept under (parent, staging)
    later = ExecutionGate(RunConfig(concurrency=4, model="sim:perfect"), tmp_path / "g2",
                          config.model_copy(update={"seed": 1}), carry_path=carry)
    second = await later.check(repair, sample)
    assert second.passed and second.details["carried_from"]["b"] == 2 and second.details["b"] == 4
    # decided, but not yet on record: a run killed now must resume this confirm from the kept statistic
    assert json.loads(carry.read_text())
    again = await ExecutionGate(RunConfig(concurrency=4, model="sim:perfect"), tmp_path / "g2",
                                config.model_copy(update={"seed": 1}), carry_path=carry).check(repair, sample)
    assert again.details["carried_from"] == second.details["carried_from"] and again.details["b"] == 4
    Carried(carry).forget(manifest_id(repair.parent_dir), manifest_id(repair.staging_dir))  # as the record step does
    assert json.loads(carry.read_text()) == {}  # on record: nothing left to carry


def test_task_sign_test_is_exact_over_tasks():
    assert task_sign_test_p(3, 1) == pytest.approx(0.625) and task_sign_test_p(0, 0) == 1.0
    assert task_sign_test_p(4, 0, alternative="greater") == pytest.approx(1 / 16)


def test_recording_a_decided_change_drops_its_carried_statistic_and_an_undecided_one_keeps_it(tmp_path):
    from modularrsi.evolve.history import Change

    evo = RunContext(EvolveConfig.load(None, {"tasks": [str(POOL / EVIDENCE[0])]}), tmp_path / "run")
    carried = Carried(evo.layout.root / "undecided.json")
    carried.keep("parent", "edit-a", Tally(b=1))
    carried.keep("parent", "edit-b", Tally(b=2))
    undecided = GateVerdict.fail("execution", "undecided after 4 rounds", stage="confirm", decision="undecided")
    base = {"lane": "completion", "epoch": 0, "module": "completion", "parent": "parent"}
    evo.record(ProposalLayout(tmp_path / "p0"), Change.decided({**base, "id": "a", "generation": "edit-a"},
                                                              [undecided]))
    evo.record(ProposalLayout(tmp_path / "p1"), Change.decided({**base, "id": "b", "generation": "edit-b"},
                                                              [GateVerdict.ok("execution", "accepted")]))
    assert carried.get("parent", "edit-a").b == 1 and carried.get("parent", "edit-b") is None
