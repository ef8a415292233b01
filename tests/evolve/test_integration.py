"""Integration: a lane's gain undone by another lane's change is found as a conflict and resolved by
reverting the offending module under the gates (real sim runs)."""

from __future__ import annotations

import json
import shutil

from testutil import QUIT_EARLY, REPO, SAMPLED_TASKS

from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.history import History
from modularrsi.evolve.integration import integrate
from modularrsi.evolve.libraryops import changed_modules
from modularrsi.evolve.memory import TrajectoryMemory
from modularrsi.evolve.pipeline import Evolution
from modularrsi.evolve.proposal import manifest_id
from modularrsi.evolve.runfiles import Lane
from modularrsi.harness import BASELINE
from modularrsi.harness.library import load_generation, read_sources, write_generation
from modularrsi.offline.sim_editor import SimEditor
from modularrsi.rollouts.run import execute


async def test_a_conflict_between_lanes_is_resolved_by_reverting_the_offending_module(tmp_path):
    run = tmp_path / "run"
    tasks = [REPO / "tasks" / "pool" / t for t in SAMPLED_TASKS]
    # four tasks give only a handful of evidence pairs: a looser (stated) test level lets them decide.
    # sim:perfect: the completion lane passes its tasks on any seed, so that the conflict's confirmation
    # run (the combined run's seed) does not hang on the default world's draws
    config = EvolveConfig(tasks=tasks, modules=["completion", "agent_loop"], k=3, concurrency=4, seed=5,
                          model="sim:perfect", gates={"execution": {"alpha": 0.3}})
    evo = Evolution(config, run)
    evo.task_dirs = {p.name: p for p in tasks}
    good = SimEditor().propose("completion", "requirements_recap", BASELINE, tmp_path / "completion", force="good")
    # the agent_loop lane's "saving" ends every episode after one reply
    base = load_generation(BASELINE)
    write_generation(tmp_path / "agent_loop", {**read_sources(base), "agent_loop/turn_loop": QUIT_EARLY},
                     base.default_active(), [base.id], "test")
    finals = {"completion": good.staging_dir, "agent_loop": tmp_path / "agent_loop"}
    with TrajectoryMemory.in_run(run) as memory:
        evo.memory = memory
        for lane, generation in finals.items():  # each lane's latest rollouts of its final generation
            template = evo.run_template().model_copy(update={"tasks": tasks, "generation": generation})
            await execute(template, run / "lane-runs" / lane)
            memory.record_run(run / "lane-runs" / lane, lane, 2, manifest_id(generation))
        lanes = [Lane(name="completion", modules=["completion"]), Lane(name="agent_loop", modules=["agent_loop"])]
        library = await integrate(evo, BASELINE, lanes, finals)
    result = json.loads((run / "integration" / "result.json").read_text())
    print(f"\nintegration: {json.dumps(result, indent=1)}")
    assert result["evolved_modules"] == ["agent_loop", "completion"]
    assert result["conflicts"], "the agent_loop change must cost the completion lane some tasks"
    assert {c["lane"] for c in result["conflicts"]} >= {"completion"}
    change = History(run / "history.jsonl").changes["integration/agent_loop"]
    assert [g.gate for g in change.gates] == ["static", "review", "execution"]
    assert change.outcome == "promoted", change.reason
    assert changed_modules(library, BASELINE) == ["completion"]
    assert result["library"] == str(library.relative_to(run))
    again = await integrate(Evolution(config, run), BASELINE, lanes, finals)  # resumed: read back, not redone
    assert again == library

    # the same evidence below `conflict_min_tasks` is reported but not resolved (the rollouts are reused)
    strict = config.model_copy(update={"integration": config.integration.model_copy(
        update={"conflict_min_tasks": 99})})
    copy = tmp_path / "strict"
    shutil.copytree(run, copy, ignore=shutil.ignore_patterns("integration", "history.jsonl"))
    with TrajectoryMemory.in_run(copy) as memory:
        evo = Evolution(strict, copy)
        evo.task_dirs, evo.memory = {p.name: p for p in tasks}, memory
        kept = await integrate(evo, BASELINE, lanes, finals)
    assert json.loads((copy / "integration" / "result.json").read_text())["conflicts"]
    assert kept == copy / "integration" / "combined"


async def test_integration_can_combine_without_the_conflict_check(tmp_path):
    tasks = [REPO / "tasks" / "pool" / t for t in SAMPLED_TASKS]
    config = EvolveConfig(tasks=tasks, modules=["completion"], integration={"enabled": False})
    good = SimEditor().propose("completion", "requirements_recap", BASELINE, tmp_path / "completion", force="good")
    evo = Evolution(config, tmp_path / "run")
    library = await integrate(evo, BASELINE, [Lane(name="completion", modules=["completion"])],
                                  {"completion": good.staging_dir})
    result = json.loads((tmp_path / "run" / "integration" / "result.json").read_text())
    assert "skipped" in result and "run" not in result and not (tmp_path / "run" / "samples").exists()
    assert changed_modules(library, BASELINE) == ["completion"]


async def test_one_evolved_module_is_combined_without_a_conflict_run(tmp_path):
    """With one module changed the combined library is that lane's own, so no attempt is spent looking for
    a conflict (with a real model that run was the whole evolution set again, hours)."""
    tasks = [REPO / "tasks" / "pool" / t for t in SAMPLED_TASKS]
    config = EvolveConfig(tasks=tasks, modules=["completion", "agent_loop"])
    good = SimEditor().propose("completion", "requirements_recap", BASELINE, tmp_path / "completion", force="good")
    lanes = [Lane(name="completion", modules=["completion"]), Lane(name="agent_loop", modules=["agent_loop"])]
    library = await integrate(Evolution(config, tmp_path / "run"), BASELINE, lanes,
                              {"completion": good.staging_dir, "agent_loop": BASELINE})
    result = json.loads((tmp_path / "run" / "integration" / "result.json").read_text())
    assert result["evolved_modules"] == ["completion"]
    assert result["skipped"] == "one module evolved (completion): nothing to conflict with, no run"
    assert "run" not in result and not (tmp_path / "run" / "samples").exists()
    assert read_sources(load_generation(library)) == read_sources(load_generation(good.staging_dir))
