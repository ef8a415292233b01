"""Integration's generation operations, the LLM editor's tool loop, and the paired evaluation maths."""

from __future__ import annotations

import json

import pytest

from modularrsi.evolve.editor import EditorError, EditRequest, LLMEditor
from modularrsi.evolve.evaluate import compare, paired_bootstrap
from modularrsi.evolve.findings import Direction, Finding
from modularrsi.evolve.libraryops import (
    changed_modules,
    combine,
    merge_functions,
    near_duplicates,
    revert_module,
)
from modularrsi.evolve.proposal import tree_hashes
from modularrsi.harness import BASELINE
from modularrsi.harness.library import load_generation, read_sources, write_generation
from modularrsi.offline.scripted import ScriptedModel
from modularrsi.offline.sim_editor import SimEditor
from modularrsi.rollouts.metrics import Attempt
from modularrsi.rollouts.results import build_results


def lane(tmp_path, module, tag):
    SimEditor().propose(module, tag, BASELINE, tmp_path / module, force="good")
    return tmp_path / module


def test_combine_takes_each_module_from_its_lane_and_revert_puts_one_back(tmp_path):
    lanes = {"completion": lane(tmp_path, "completion", "evidence_check"),
             "agent_loop": lane(tmp_path, "agent_loop", "loop_guard")}
    combined = combine(BASELINE, lanes, tmp_path / "combined", "test")
    assert changed_modules(tmp_path / "combined", BASELINE) == ["agent_loop", "completion"]
    assert combined.default_active()["completion"][-1] == "evidence_check"
    assert combined.default_active()["agent_loop"][-1] == "loop_guard"
    assert set(combined.manifest.parents) == {load_generation(BASELINE).id,
                                                *(load_generation(p).id for p in lanes.values())}
    inputs = {p: tree_hashes(p) for p in (tmp_path / "combined", BASELINE)}
    reverted = revert_module(tmp_path / "combined", BASELINE, "agent_loop", tmp_path / "reverted", "test")
    assert changed_modules(tmp_path / "reverted", BASELINE) == ["completion"]
    assert "agent_loop/loop_guard" not in reverted.functions
    assert {p: tree_hashes(p) for p in inputs} == inputs  # inputs only read


def test_function_merge_folds_near_duplicates_and_keeps_lineage(tmp_path):
    gen = load_generation(lane(tmp_path, "completion", "evidence_check"))
    sources = read_sources(gen)
    twin = sources["completion/evidence_check"].replace('DESCRIPTION = "', 'DESCRIPTION = "Copy: ')
    twin = twin.replace("# ", "# note: ", 1)
    sources["completion/evidence_check_v2"] = twin
    active = gen.default_active()
    write_generation(tmp_path / "dup", sources, active, [gen.id], "test")
    merges = near_duplicates(load_generation(tmp_path / "dup"), 0.9)
    assert [(m.kept, m.merged) for m in merges] == [("completion/evidence_check", "completion/evidence_check_v2")]
    merged = merge_functions(tmp_path / "dup", merges, tmp_path / "merged", "test")
    assert "completion/evidence_check_v2" not in merged.functions
    lineage = merged.functions["completion/evidence_check"].parents
    assert any(p.endswith("completion/evidence_check_v2") for p in lineage)
    assert near_duplicates(load_generation(BASELINE), 0.9) == []  # the five baseline functions are distinct


# ----------------------------------------------------------------------------------------------- editor
def direction(module="completion") -> Direction:
    finding = Finding(task="t1", lens=module, kind="contrastive", is_culprit=True, locked_module=module,
                      divergence="claimed completion before checking the output", suggested_change="verify first",
                      mechanism="completion-evidence-check", pass_count=1, attempts=3)
    return Direction(id="d1", module=module, mechanism="completion-evidence-check", summary="verify first",
                     tasks=["t1"], findings=[finding], vote=1.0, raw_support=1)


NEW_FN = '''"""Accepts a claim only after one verification round."""

MODULE = "completion"
ROLE = "additive"
DESCRIPTION = "Asks once for a command that shows the result before a claim is accepted."
PARAMETERS = {}


def check(ctx, claim):
    return None
'''


async def test_llm_editor_edits_only_its_module_and_writes_a_sealed_generation(tmp_path):
    base = load_generation(BASELINE)
    active = base.default_active()["completion"]
    replies = [json.dumps({"tool": "list"}),
               json.dumps({"tool": "read", "path": "observation/limit_output.py"}),  # refused: other module
               "I think I should write a file",                                   # not JSON: feedback
               json.dumps({"tool": "write", "path": "completion/verify_once.py", "content": NEW_FN}),
               json.dumps({"tool": "activate", "module": "completion", "names": [*active, "verify_once"]}),
               json.dumps({"tool": "done", "description": "claims go unverified because nothing asks; asking once "
                                                            "leads to fewer wrong claims"})]
    model = ScriptedModel(replies)
    proposal = await LLMEditor(model).edit(EditRequest(direction=direction(), parent_dir=BASELINE,
                                                       modules=["completion"]), tmp_path / "staging")
    assert proposal.changed_files == ["manifest.json", "modules/completion/verify_once.py"]
    assert load_generation(tmp_path / "staging").default_active()["completion"][-1] == "verify_once"
    tool_results = [m.content for m in model.calls[-1] if m.purpose in ("tool_result", "parse_error_feedback")]
    assert "outside the modules you may change" in tool_results[1]
    assert "Not a JSON object" in tool_results[2]
    prompt = model.calls[0][1].content
    assert "pass" not in prompt.lower().split("supported by")[0]  # the task prompt carries no outcomes


async def test_llm_editor_that_changes_nothing_is_an_editor_failure(tmp_path):
    model = ScriptedModel([json.dumps({"tool": "done", "description": "nothing"})])
    with pytest.raises(EditorError, match="without changing anything"):
        await LLMEditor(model).edit(EditRequest(direction=direction(), parent_dir=BASELINE, modules=["completion"]),
                                    tmp_path / "staging")
    assert not (tmp_path / "staging").exists()


# ------------------------------------------------------------------------------------------- evaluation
def results(outcomes: dict[str, list[int]]):
    attempts = [Attempt(task=t, attempt=i, reward=float(r), steps=5) for t, rs in outcomes.items()
                for i, r in enumerate(rs)]
    return build_results("r", "sim", "g", attempts, 3, 1.0)


def test_paired_comparison_counts_flips_and_tests_them():
    base = results({"a": [0, 0, 0], "b": [1, 0, 1], "c": [1, 1, 1], "d": [0, 0, 0]})
    cand = results({"a": [1, 1, 0], "b": [1, 1, 1], "c": [1, 1, 0], "d": [0, 0, 0]})
    out = compare(base, cand, 3, 0, (BASELINE, BASELINE), (BASELINE, BASELINE))
    assert (out.fail_to_pass, out.pass_to_fail, out.attempt_pairs) == (3, 1, 12)
    assert [(f.task, f.status) for f in out.flips] == [("a", "fixed"), ("b", "fixed"), ("c", "broken"),
                                                      ("d", "unchanged")]
    assert out.sign_test_p == pytest.approx(1.0)  # over tasks: 2 fixed vs 1 broken (3 vs 1 attempt flips: 0.625)
    acc = out.delta("acc")
    assert acc.diff == pytest.approx((2 / 3 + 1 / 3 - 1 / 3) / 4, abs=1e-4)
    assert acc.ci95[0] <= acc.diff <= acc.ci95[1]
    assert out.simulated


def test_paired_bootstrap_is_zero_width_for_identical_sides():
    import numpy as np

    a = np.array([0.0, 1.0, 0.5])
    assert paired_bootstrap(a, a) == [0.0, 0.0]
