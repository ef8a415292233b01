"""Paired evaluation of a candidate generation against a baseline (``modularrsi eval``).

Both generations run the same tasks with the same attempt seeds (a run seed, a task and an attempt
index give one seed), so attempt *j* of task *t* under the baseline is paired with attempt *j* of *t*
under the candidate. Reported, per side: Acc, Pass@k, Pass^k, mean steps, tokens and cost with their
bootstrap intervals (from each run's ``results.json``); for the difference candidate − baseline: a
paired bootstrap interval over tasks for each metric (a cluster bootstrap: a task's attempts move
together), and the headline tests, which count *tasks*, not attempts (attempts of one task are not
independent): an exact two-sided sign test on tasks fixed vs broken and a Wilcoxon signed-rank test on
the per-task Acc differences. Per task: fixed (more passes under the candidate), broken (fewer) or
unchanged. Attempt flips (fail→pass, pass→fail) are reported as description only.

The sides are coupled through the response cache (common random numbers, ``coupled`` in the result):
the baseline runs first, then the candidate with the baseline's ``cache.sqlite`` as its replay cache
(:attr:`RunConfig.replay_cache`), so a candidate attempt asking exactly what the paired baseline attempt
asked gets the same reply, and calls the model from its first different request. Each side is still
distributed as alone, so the tests stay valid; an inert change gives no discordant pair (docs/evolve.md).

Held-out means held out: tasks the candidate's frozen library evolved on (by name or content, see
:mod:`.overlap`) are refused before any trial, ``--dataset`` tasks included; ``allow_overlap`` runs them
anyway and the result names them (``overlap``).

Layout: ``<out>/baseline/`` and ``<out>/candidate/`` are ordinary run directories (resumable);
``<out>/eval.json`` is the comparison (:class:`EvalResult`); ``modularrsi eval`` also writes
``<out>/config.yaml`` (:class:`EvalConfig`, what ``--resume`` continues with).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from scipy.stats import wilcoxon

from modularrsi.evolve.gates.stats import task_sign_test_p
from modularrsi.evolve.overlap import overlapping
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.results import Estimates, RunResults
from modularrsi.util.errors import UserError
from modularrsi.util.files import write_json

METRICS = ("acc", "pass_at_k", "pass_hat_k", "mean_steps", "tokens", "cost_usd")


class EvalConfig(RunConfig):
    """Settings of ``modularrsi eval`` (``config.yaml`` of an eval directory): a run's settings, shared by
    both sides, with ``generation`` the candidate and ``baseline`` what it is compared with."""

    baseline: Path | None = Field(default=None, description="Baseline generation (default gen_0).")
    allow_overlap: bool = Field(default=False, description="Run tasks the candidate's frozen library evolved on "
                                "(refused by default); the result says so.")
    share_from: list[Path] = Field(default_factory=list, description="Other eval directories (an eval's --out, an "
                                   "evolution run's eval/) whose finished attempts with the same generation and "
                                   "draws are taken instead of run again.")

    def template(self) -> RunConfig:
        """The settings both sides run with (each side sets its own generation)."""
        return RunConfig.model_validate(self.model_dump(exclude={"baseline", "generation", "allow_overlap",
                                                                 "share_from"}))


class Side(Estimates):
    """One generation's run in a comparison: its estimates, plus where it came from and its cost."""

    generation: str
    path: str
    run: str
    tokens: int
    cost_usd: float
    invalid_attempts: int


class Delta(BaseModel):
    model_config = ConfigDict(extra="forbid")
    metric: str
    baseline: float
    candidate: float
    diff: float
    ci95: list[float]


class TaskFlip(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task: str
    baseline_passes: int
    candidate_passes: int
    attempts: int
    status: Literal["fixed", "broken", "unchanged"]


class EvalResult(BaseModel):
    """``eval.json``: the paired comparison. ``simulated``: the agent model was ``sim``. ``sign_test_p``:
    exact two-sided sign test over tasks (``fixed`` vs ``broken``; schema 2 — schema 1 counted attempt
    flips); ``fail_to_pass`` / ``pass_to_fail`` count attempt pairs, description only."""

    model_config = ConfigDict(extra="forbid")
    schema_version: int = 2
    simulated: bool
    model: str
    k: int
    seed: int
    tasks: int
    baseline: Side
    candidate: Side
    deltas: list[Delta]
    attempt_pairs: int
    fail_to_pass: int
    pass_to_fail: int
    sign_test_p: float
    wilcoxon_p: float | None
    flips: list[TaskFlip]
    fixed: int
    broken: int
    unchanged: int
    overlap: list[str] = Field(default_factory=list, description="Tasks the candidate evolved on, evaluated "
                               "anyway (--allow-overlap): the result is not a held-out result.")
    coupled: bool = Field(default=False, description="The candidate replayed the baseline's response cache "
                          "(common random numbers; a cached real model): identical requests of paired attempts "
                          "got identical replies.")
    shared: dict[str, int] = Field(default_factory=dict, description="Per side, the attempts taken from other "
                                   "evals (share_from) rather than run here: the same draws.")

    def delta(self, metric: str) -> Delta:
        return next(d for d in self.deltas if d.metric == metric)


def _side(results: RunResults, path: Path, run: Path) -> Side:
    o = results.overall
    return Side(generation=results.generation, path=str(path), run=str(run),
                **o.model_dump(include=set(Estimates.model_fields)),
                tokens=o.input_tokens + o.output_tokens, cost_usd=o.cost_usd, invalid_attempts=o.invalid_attempts)


def _per_task(results: RunResults) -> dict[str, dict[str, float]]:
    """Per-task metrics of the tasks with at least one valid attempt (the others say nothing)."""
    return {t.task: {"acc": t.acc, "pass_at_k": t.pass_at_k, "pass_hat_k": t.pass_hat_k, "mean_steps": t.mean_steps,
                     "tokens": float(t.input_tokens + t.output_tokens), "cost_usd": t.cost_usd}
            for t in results.per_task if t.invalid < t.attempts}


def _valid_rewards(results: RunResults) -> dict[tuple[str, int], float]:
    invalid = {(a.task, a.attempt) for a in results.invalid()}
    return {(a.task, a.attempt): a.reward for a in results.attempts
            if a.reward is not None and (a.task, a.attempt) not in invalid}


def paired_bootstrap(a: np.ndarray, b: np.ndarray, n_boot: int = 2000, seed: int = 0) -> list[float]:
    """95 % interval of mean(b − a) resampling tasks (pairs kept together)."""
    diff = b - a
    if len(diff) == 0:
        return [0.0, 0.0]
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(n_boot, len(diff)))].mean(axis=1)
    return [round(float(np.percentile(means, 2.5)), 4), round(float(np.percentile(means, 97.5)), 4)]


def compare(baseline: RunResults, candidate: RunResults, k: int, seed: int,
            paths: tuple[Path, Path], runs: tuple[Path, Path]) -> EvalResult:
    """The comparison of two runs of the same tasks and seeds (pure: no trial is run)."""
    base, cand = _per_task(baseline), _per_task(candidate)
    tasks = sorted(base.keys() & cand.keys())
    deltas = []
    for metric in METRICS:
        a = np.array([base[t][metric] for t in tasks], dtype=float)
        b = np.array([cand[t][metric] for t in tasks], dtype=float)
        deltas.append(Delta(metric=metric, baseline=round(float(a.mean()) if len(a) else 0.0, 4),
                            candidate=round(float(b.mean()) if len(b) else 0.0, 4),
                            diff=round(float((b - a).mean()) if len(a) else 0.0, 4),
                            ci95=paired_bootstrap(a, b, seed=seed)))
    before, after = _valid_rewards(baseline), _valid_rewards(candidate)
    pairs = [(before[key], after[key]) for key in before.keys() & after.keys()]
    b_flips = sum(x < 1.0 <= y for x, y in pairs)
    c_flips = sum(y < 1.0 <= x for x, y in pairs)
    acc_diff = np.array([cand[t]["acc"] - base[t]["acc"] for t in tasks])
    wil_p = float(wilcoxon(acc_diff, zero_method="zsplit").pvalue) if np.any(acc_diff != 0) else None
    flips = []
    passes = {side: {t.task: t.passes for t in res.per_task} for side, res in (("b", baseline), ("c", candidate))}
    for t in tasks:
        pb, pc = passes["b"][t], passes["c"][t]
        change = cand[t]["acc"] - base[t]["acc"]  # over valid attempts, so that invalid ones weigh nothing
        status = "fixed" if change > 0 else "broken" if change < 0 else "unchanged"
        flips.append(TaskFlip(task=t, baseline_passes=pb, candidate_passes=pc,
                              attempts=next(x.attempts for x in candidate.per_task if x.task == t), status=status))
    count = {s: sum(f.status == s for f in flips) for s in ("fixed", "broken", "unchanged")}
    sign_p = task_sign_test_p(count["fixed"], count["broken"])
    return EvalResult(simulated=baseline.simulated or candidate.simulated, model=baseline.model, k=k, seed=seed,
                      tasks=len(tasks), baseline=_side(baseline, paths[0], runs[0]),
                      candidate=_side(candidate, paths[1], runs[1]), deltas=deltas, attempt_pairs=len(pairs),
                      fail_to_pass=b_flips, pass_to_fail=c_flips, sign_test_p=round(sign_p, 6),
                      wilcoxon_p=None if wil_p is None else round(wil_p, 6), flips=flips, **count)


async def check_overlap(template: RunConfig, candidate: Path, allow: bool) -> list[str]:
    """The tasks of ``template`` (paths or ``--dataset``) that ``candidate`` evolved on; a ValueError
    naming them unless ``allow``."""
    from modularrsi.rollouts.run import resolve_tasks

    tasks = [(name, Path(str(t.path)) if t.path else None) for name, t in await resolve_tasks(template)]
    clash = overlapping(candidate, tasks)
    if clash and not allow:
        raise UserError(f"refusing to evaluate on {len(clash)} task(s) {candidate} evolved on (e.g. {clash[0]}); "
                        "held-out tasks must be disjoint from evolution tasks (--allow-overlap runs them anyway "
                        "and labels the result)")
    return clash


def side_config(template: RunConfig, side: str, generation: Path, out: Path) -> RunConfig:
    """One side's run settings: ``generation``, and for the candidate (with the cache on) the baseline's
    response cache as its replay cache."""
    update: dict = {"generation": generation}
    if side == "candidate" and template.cache:
        update["replay_cache"] = out / "baseline" / "cache.sqlite"
    return template.model_copy(update=update)


async def evaluate(template: RunConfig, baseline: Path, candidate: Path, out: Path,
                   slots: asyncio.Semaphore | None = None, budget_path: Path | None = None,
                   allow_overlap: bool = False, checked: bool = False,
                   share_from: list[Path] | None = None) -> EvalResult:
    """Run both generations on ``template.tasks`` (same seeds) into ``out`` and write ``eval.json``.
    Resumable: finished attempts of either side are reused. ``budget_path``: a ledger shared with the
    caller (an evolution's), so its caps hold here too. Overlapping tasks: see :func:`check_overlap`.
    The baseline side runs first; the candidate side replays its response cache (module docstring).
    ``share_from``: other evals whose attempts with the same draws are taken (:mod:`.eval_share`)."""
    from modularrsi.evolve import eval_share
    from modularrsi.harness.library import load_generation
    from modularrsi.models.settings import is_litellm
    from modularrsi.rollouts.preflight import check_run
    from modularrsi.rollouts.run import execute, plan_jobs, resolve_tasks  # here: reading eval.json needs no Harbor

    ids = [load_generation(generation).id for generation in (baseline, candidate)]  # refuse a broken one first
    if not checked:  # the caller's preflight covers this template (an evolution's, eval's command line)
        check_run(template)
    overlap = await check_overlap(template, candidate, allow_overlap)
    results = []
    if share_from:
        eval_share.check_sources(share_from, out)
        jobs = plan_jobs(template, await resolve_tasks(template))
    shared = {}
    # in turn: the candidate replays the baseline's replies
    for side, generation, gid in zip(eval_share.SIDES, (baseline, candidate), ids, strict=True):
        config = side_config(template, side, generation, out)
        if share_from:
            eval_share.take(side, config, gid, jobs, out / side, share_from)
        shared[side] = len(eval_share.taken_from(out / side))
        results.append(await execute(config, out / side, slots=slots, budget_path=budget_path, checked=True))
    coupled = template.cache and is_litellm(template.model)
    result = compare(results[0], results[1], template.k, template.seed, (baseline, candidate),
                     (out / "baseline", out / "candidate"))
    result = result.model_copy(update={"overlap": overlap, "coupled": coupled,
                                       "shared": {side: n for side, n in shared.items() if n}})
    write_json(out / "eval.json", result.model_dump(mode="json"))
    return result
