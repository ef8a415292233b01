"""A synthetic evolution run directory of any size, for report tests and ``bench/report.py``.

A test double, documented as such: outcomes are drawn from a seeded generator, not produced by an
agent. The *files* are real: every one is built with the schema the pipeline writes (RunResults via
``build_results``, buckets via the real router over a real trajectory memory, directions via the real
aggregation, EvalResult via the real paired comparison, History changes, generation manifests) and
ATIF trajectories whose passing and failing attempts of a task share a prefix and then diverge.
"""

from __future__ import annotations

import difflib
import hashlib
import random
from pathlib import Path

from modularrsi.evolve.aggregate import AggregateConfig, aggregate
from modularrsi.evolve.buckets import route
from modularrsi.evolve.config import MODULES
from modularrsi.evolve.evaluate import compare
from modularrsi.evolve.findings import MECHANISMS, Finding
from modularrsi.evolve.gates import GateVerdict
from modularrsi.evolve.history import Change, History
from modularrsi.evolve.memory import AttemptRecord, TrajectoryMemory
from modularrsi.evolve.runfiles import (
    EpochOutcome,
    EpochSample,
    EvolveLock,
    FrozenRecord,
    FunctionEntry,
    GenerationManifest,
    IntegrationResult,
    Lane,
    LaneState,
    MergeRecord,
    write_model,
)
from modularrsi.rollouts.metrics import Attempt
from modularrsi.rollouts.results import RunResults, build_results
from modularrsi.rollouts.state import BudgetFile, RunState, write_state
from modularrsi.util.files import write_json, write_text, write_yaml

BASE = {"agent_loop": "turn_loop", "tool_use": "terminus_json", "observation": "limit_output",
        "context": "summarize_on_pressure", "completion": "confirm_twice"}
OUTCOMES = ["promoted", "static", "review", "execution", "editor_failed"]
SUGGESTIONS = ["stop repeating an identical command batch and change approach",
               "plan the remaining requirements before acting further",
               "retry a failed command once with its error shown"]


def _source(module: str, name: str, variant: int) -> str:
    body = "\n".join(f"    value_{i} = ctx.params.get('p{i}', {variant + i})  # step {i} of {name}" for i in range(30))
    return (f'"""{module}/{name}: synthetic function, variant {variant}."""\n\nimport re\n\nMODULE = "{module}"\n'
            f"ROLE = \"additive\"\n\n\ndef check(reply, output, ctx):\n{body}\n    if re.search(r'done', output):\n"
            f"        return None\n    return f\"variant {variant}: {{output[:80]}}\"\n")


def _manifest(path: Path, functions: dict[str, str], parents: list[str], created_by: str,
              lineage: dict[str, list[str]] | None = None) -> str:
    entries = [FunctionEntry(module=k.split("/")[0], name=k.split("/")[1],
                             sha256=hashlib.sha256(src.encode()).hexdigest(), parents=(lineage or {}).get(k, []))
               for k, src in sorted(functions.items())]
    active = {m: sorted(k.split("/")[1] for k in functions if k.startswith(f"{m}/")) for m in MODULES}
    manifest = GenerationManifest.sealed(entries, active, parents, created_by)
    path.mkdir(parents=True, exist_ok=True)
    manifest.write(path)
    return manifest.id


def _trajectory(task: str, passed: bool, attempt: int, rng: random.Random) -> dict:
    steps = [{"step_id": 1, "source": "user", "message": f"Solve {task}: make its checks pass."}]
    plan = [f"cd /app && python3 tools/{task}.py --stage {i}\n" for i in range(rng.randint(3, 6))]
    if not passed:
        cut = rng.randint(0, len(plan) - 1)
        plan = plan[:cut] + ["ls -la; find / -maxdepth 2 | head -n 400\n"] * rng.randint(1, 3)
    for i, keys in enumerate([*plan, None]):
        call = {"function_name": "mark_task_complete", "arguments": {}} if keys is None else \
            {"function_name": "bash_command", "arguments": {"keystrokes": keys, "duration": 0.3}}
        calls = [{"tool_call_id": f"call_{i}", **call}]
        steps.append({"step_id": i + 2, "source": "agent", "message": f"Analysis: attempt {attempt}, turn {i}.",
                      "tool_calls": calls, "observation": {"results": [{"content": f"$ {keys or ''}\nok {i}\n"}]}})
    return {"schema_version": "ATIF-v1.4", "session_id": f"{task}-{attempt}", "agent": {"name": "synthetic"},
            "steps": steps}


def _sample(out: Path, generation: str, tasks: list[str], skill: dict[str, float], k: int, rng: random.Random,
            trajectories: bool) -> RunResults:
    """A run directory at ``out``: results.json, state.json (+ trials with trajectories)."""
    attempts = []
    for task in tasks:
        for a in range(k):
            passed = rng.random() < skill[task]
            steps = rng.randint(4, 12)
            attempts.append(Attempt(task, a, 1.0 if passed else 0.0, steps, 900 * steps, 80 * steps, 0.0, 2.0))
            if trajectories:
                write_json(out / "trials" / f"{task}__a{a}" / "agent" / "trajectory.json",
                           _trajectory(task, passed, a, rng))
    results = build_results(out.name, "sim", generation, attempts, k, 10.0)
    write_json(out / "results.json", results.model_dump(mode="json"))
    write_state(out / "state.json", RunState(status="done", attempts_total=len(attempts), attempts_done=len(attempts)))
    return results


def _findings(lane: str, results: RunResults, buckets, rng: random.Random) -> list[Finding]:
    out = []
    routes = {t.task: t for t in buckets.tasks}
    for row in results.per_task:
        bucket = routes[row.task].bucket.value
        kind = "efficiency" if row.passes == row.attempts else "contrastive" if row.passes else "single-sided"
        culprit = kind != "efficiency" and rng.random() < 0.7
        choice = rng.randrange(len(SUGGESTIONS))
        mechanism = [MECHANISMS[lane], "plan-first", "retry-on-error"][choice]
        out.append(Finding(task=row.task, lens=lane, kind=kind, is_culprit=culprit,
                           locked_module=lane if culprit else None, divergence=f"{row.task}: attempts differ at step "
                           f"{rng.randint(0, 4)}", would_change_outcome=culprit, fixable_now=culprit,
                           suggested_change=SUGGESTIONS[choice] if culprit else "",
                           mechanism=mechanism if culprit else "", evidence_steps=[2, 3], bucket=bucket,
                           pass_count=row.passes, attempts=row.attempts,
                           pair_source="same-epoch" if kind == "contrastive" else None, analyst="synthetic"))
    return out


def _change(lane: str, epoch: int, index: int, direction, parent: str, outcome: str, diff: str) -> Change:
    gates = []
    for gate in ("static", "review", "execution"):
        if outcome == "editor_failed":
            break
        passed = outcome != gate
        gates.append(GateVerdict(gate=gate, passed=passed, reason=f"{gate} {'passed' if passed else 'rejected'}: "
                                f"synthetic verdict {index}"))
        if not passed:
            break
    return Change(id=f"{lane}/e{epoch}/d{index}-0", lane=lane, epoch=epoch, module=lane, direction=direction.id,
                  mechanism=direction.mechanism, summary=direction.summary, tasks=direction.tasks,
                  vote=direction.vote, editor="synthetic", description=f"Adds {direction.mechanism}.", parent=parent,
                  files=["manifest.json", f"modules/{lane}/{direction.mechanism.replace('-', '_')}.py"],
                  diff=diff if outcome != "editor_failed" else "", gates=gates, outcome=outcome,
                  rejected_by=outcome if outcome in ("static", "review", "execution") else None,
                  reason="editor produced no patch" if outcome == "editor_failed" else gates[-1].reason)


class _Builder:
    """Writes one lane's epochs; shares the run's generator, memory and history."""

    def __init__(self, run_dir: Path, names: list[str], k: int, rng: random.Random, trajectories: bool,
                 memory: TrajectoryMemory, history: History, directions: int):
        self.run_dir, self.names, self.k, self.rng, self.trajectories = run_dir, names, k, rng, trajectories
        self.memory, self.history, self.directions = memory, history, directions

    def sample(self, gen_id: str, epoch: int, skill: dict[str, float]) -> tuple[str, RunResults]:
        key = f"{gen_id}-s{1000 + epoch}"
        path = self.run_dir / "samples" / key
        if (path / "results.json").is_file():  # lanes on the same generation and seed share a sample
            return key, RunResults.model_validate_json((path / "results.json").read_text())
        return key, _sample(path, gen_id, self.names, skill, self.k, self.rng, self.trajectories)

    def epoch(self, lane: str, epoch: int, gen_id: str, functions: dict[str, str], skill: dict[str, float]
              ) -> list[Change]:
        key, results = self.sample(gen_id, epoch, skill)
        edir = self.run_dir / "lanes" / lane / f"epoch_{epoch}"
        trials = self.run_dir / "samples" / key / "trials"
        records = [AttemptRecord(lane=lane, epoch=epoch, generation=gen_id, task=a.task, attempt=a.attempt,
                                 reward=a.reward, passed=bool(a.reward), steps=a.steps,
                                 tokens=a.input_tokens + a.output_tokens,
                                 trial_dir=str(trials / f"{a.task}__a{a.attempt}"))
                   for a in results.attempts]
        self.memory.add(records)
        buckets = route(records, self.memory)
        findings = _findings(lane, results, buckets, self.rng)
        agg = aggregate(findings, AggregateConfig(max_directions=self.directions))
        write_model(edir / "sample.json", EpochSample(run=f"samples/{key}", seed=1000 + epoch, generation=gen_id,
                                                      tasks=self.names, acc=results.overall.acc, simulated=True))
        write_json(edir / "buckets.json", buckets.model_dump(mode="json"))
        write_text(edir / "findings.jsonl", "".join(f.model_dump_json() + "\n" for f in findings))
        write_json(edir / "directions.json", agg.model_dump(mode="json"))
        changes = []
        for index, direction in enumerate(agg.directions):
            name = direction.mechanism.replace("-", "_")
            new, old = _source(lane, name, epoch + 1), functions.get(f"{lane}/{name}", "")
            diff = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                f"a/modules/{lane}/{name}.py", f"b/modules/{lane}/{name}.py"))
            change = _change(lane, epoch, index, direction, gen_id, self.rng.choice(OUTCOMES), diff)
            if change.outcome == "promoted":
                functions[f"{lane}/{name}"] = new
            changes.append(change)
            self.history.record(change)
        return changes

    def lane(self, lane: str, epochs: int, start: str, start_functions: dict[str, str], skill: dict[str, float]
             ) -> dict[str, str]:
        functions, gen_id, gen_n = dict(start_functions), start, 0
        for epoch in range(epochs):
            parent = gen_id
            promoted = [c.id for c in self.epoch(lane, epoch, gen_id, functions, skill) if c.outcome == "promoted"]
            promoted_as = None
            if promoted:
                gen_n += 1
                promoted_as = f"gen_{gen_n}"
                gen_id = _manifest(self.run_dir / "lanes" / lane / promoted_as, functions, [parent], "synthetic editor")
                skill = {t: min(1.0, s + 0.05) for t, s in skill.items()}
                for change_id in promoted:
                    self.history.record(self.history.changes[change_id].model_copy(
                        update={"promoted_as": promoted_as, "generation": gen_id}))
            write_model(self.run_dir / "lanes" / lane / f"epoch_{epoch}" / "outcome.json", EpochOutcome(
                lane=lane, epoch=epoch, parent=parent, promoted=promoted, promoted_as=promoted_as, generation=gen_id))
        write_model(self.run_dir / "lanes" / lane / "state.json", LaneState(
            lane=lane, modules=[lane], epochs_done=epochs, generation=f"gen_{gen_n}",
            generations=[f"gen_{n}" for n in range(gen_n + 1)]))
        return functions


def make_run(run_dir: Path, tasks: int = 100, epochs: int = 3, lanes: tuple[str, ...] = MODULES, k: int = 3,
             directions: int = 2, seed: int = 0, trajectories: bool = True) -> Path:
    """Write a finished synthetic evolution run into ``run_dir``: ``tasks`` evolution tasks and as many
    held-out ones, ``lanes`` × ``epochs`` epochs with at most ``directions`` proposals each."""
    rng = random.Random(seed)
    names = [f"task-{i:03d}" for i in range(tasks)]
    skill = {t: rng.choice([0.1, 0.4, 0.6, 0.9]) for t in names}
    write_yaml(run_dir / "config.yaml", {"tasks": names, "modules": list(lanes), "epochs": epochs, "k": k,
                                         "seed": seed})
    write_model(run_dir / "lock.json", EvolveLock(mode="lanes", contrast=True, tasks=names, seed=seed,
                                                  lanes=[Lane(name=m, modules=[m]) for m in lanes],
                                                  roles={r: "sim" for r in ("agent", "analyst", "editor", "reviewer")}))
    start_functions = {f"{m}/{n}": _source(m, n, 0) for m, n in BASE.items()}
    start = _manifest(run_dir / "start", start_functions, [], "baseline")
    history = History(run_dir / "history.jsonl")
    with TrajectoryMemory.in_run(run_dir) as memory:
        builder = _Builder(run_dir, names, k, rng, trajectories, memory, history, directions)
        finals = {lane: builder.lane(lane, epochs, start, start_functions, dict(skill)) for lane in lanes}
    _finish(run_dir, start, start_functions, finals, history, skill, k, rng, trajectories)
    write_state(run_dir / "state.json", RunState(status="done", stage="done", mode="lanes", epochs=epochs))
    return run_dir


def _finish(run_dir: Path, start: str, start_functions: dict[str, str], finals: dict[str, dict[str, str]],
            history: History, skill: dict[str, float], k: int, rng: random.Random, trajectories: bool) -> None:
    """Integration, one Function Merge when a module gained two functions, freeze, eval on held-out tasks."""
    combined = dict(start_functions)
    for lane, functions in finals.items():
        combined.update({key: src for key, src in functions.items() if key.startswith(f"{lane}/")})
    combined_id = _manifest(run_dir / "integration" / "combined", combined, [start], "integration")
    write_model(run_dir / "integration" / "result.json",
                IntegrationResult(library="integration/combined", generation=combined_id))
    added = sorted(set(combined) - set(start_functions))
    pairs = [(a, b) for a, b in zip(added, added[1:], strict=False) if a.split("/")[0] == b.split("/")[0]]
    library, library_id, lineage = combined, combined_id, {}
    if pairs:
        kept, merged = pairs[0]
        library = {key: src for key, src in combined.items() if key != merged}
        lineage = {kept: [f"{combined_id}:{merged}"]}
        library_id = _manifest(run_dir / "merged", library, [combined_id], "function merge of 1 pair(s)", lineage)
        for change in history.promoted():
            if any(f.endswith(f"{merged.split('/')[1]}.py") for f in change.files):
                history.set_fate(change.id, f"merged into {kept}")
    write_model(run_dir / "merge.json", MergeRecord(library="merged" if pairs else "integration/combined",
                                                    generation=library_id))
    frozen_id = _manifest(run_dir / "frozen", library, [library_id] if pairs else [start, combined_id],
                          "frozen by synthetic run", lineage)
    write_model(run_dir / "frozen.json", FrozenRecord(generation=frozen_id, path="frozen", start=start))
    held = {f"heldout-{t[5:]}": s for t, s in skill.items()}
    base = _sample(run_dir / "eval" / "baseline", start, sorted(held), held, k, rng, trajectories)
    better = {t: min(1.0, s + 0.1) for t, s in held.items()}
    cand = _sample(run_dir / "eval" / "candidate", frozen_id, sorted(held), better, k, rng, trajectories)
    result = compare(base, cand, k, 0, (run_dir / "start", run_dir / "frozen"),
                     (run_dir / "eval" / "baseline", run_dir / "eval" / "candidate"))
    write_json(run_dir / "eval" / "eval.json", result.model_dump(mode="json"))
    samples = [RunResults.model_validate_json(p.read_text()) for p in sorted(run_dir.rglob("results.json"))]
    rows = [row for results in samples for row in results.attempts]
    spent = {"calls": sum(row.steps for row in rows), "cost_usd": sum(row.cost_usd for row in rows),
             "tokens": sum(row.input_tokens + row.output_tokens for row in rows)}
    write_json(run_dir / "budget.json", BudgetFile.model_validate({"spent": spent}).model_dump(mode="json"))
