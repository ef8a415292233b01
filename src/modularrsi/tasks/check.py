"""``tasks check``: task intake beyond oracle/nop — integrity, evaluator validity, non-triviality, judge.

Per task a :class:`CheckReport` with four checks; each is ``ok`` (False = the task FAILS) and may carry
flags (warnings that never fail a task):

1. environment — static, no trial: the Dockerfile parses into LocalSandbox's subset, every COPY/ADD
   source exists under ``environment/``, ``tests/test.sh`` exists, ``solution/solve.sh`` has ``# step:``
   sections with commands in them. When it fails, no trial and no judge call is made.
2. evaluator — real Harbor trials: the oracle is rewarded 1 on each of ``repeats`` runs (a flaky oracle
   fails), nop gets 0, every run writes a reward; the *partial* solution (solve.sh without its last
   step that has a command) is run by the oracle agent on a temporary copy of the task, and a task
   that still rewards it is flagged ``weakly-verified``; the forgery probe
   (:mod:`modularrsi.tasks.check_forgery`) runs reward-writing attacks that solve nothing, and a task that
   rewards any of them fails and is flagged ``reward-forgeable``, each problem naming the attack.
3. non_triviality — effective reference steps and instruction words; flagged ``trivial`` under thresholds.
4. judge — optional: one LLM call per task scoring the paper's three dimensions 1-5; a malformed reply
   or a model error is recorded (flag ``judge-unparsed`` / ``judge-error``), never raised.

The records are in :mod:`modularrsi.tasks.check_report`.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from harbor.models.trial.config import AgentConfig, EnvironmentConfig

from modularrsi.sandbox.dockerfile import CopyStep, DockerfileRefused, parse_dockerfile
from modularrsi.tasks.check_forgery import ForgeryProbe, probe_forgery
from modularrsi.tasks.check_judge import judge_task
from modularrsi.tasks.check_report import (
    Check,
    CheckConfig,
    CheckReport,
    EvaluatorCheck,
    JudgeCheck,
    TrivialityCheck,
    manifest_record,
)
from modularrsi.tasks.manifest import entry_for, load_manifest, save_manifest
from modularrsi.tasks.model import TaskError, TaskInfo, load_task
from modularrsi.tasks.solution_trial import run_solution
from modularrsi.tasks.trials import TrialOutcome, run_trial
from modularrsi.util.files import write_json
from modularrsi.util.steps import STEP_MARKER, parse_steps


def _sections(script: str) -> tuple[list[str], list[list[str]]]:
    """(head: shebang + preamble lines, sections: lines from each ``# step:`` marker to the next)."""
    head: list[str] = []
    sections: list[list[str]] = []
    for line in script.splitlines():
        if STEP_MARKER.match(line):
            sections.append([line])
        elif sections:
            sections[-1].append(line)
        else:
            head.append(line)
    return head, sections


def _effective(section: list[str]) -> bool:
    return any(line.strip() and not line.strip().startswith("#") for line in section[1:])


def effective_steps(script: str) -> int:
    """Steps of ``script`` whose body has a line that is neither blank nor a comment."""
    return sum(_effective(s) for s in _sections(script)[1])


def partial_solution(script: str) -> tuple[str, str] | None:
    """(``script`` without its last effective step, that step's title); the preamble and every other
    step are kept verbatim. None when no step has a command."""
    head, sections = _sections(script)
    effective = [i for i, s in enumerate(sections) if _effective(s)]
    if not effective:
        return None
    cut = effective[-1]
    kept = head + [line for i, s in enumerate(sections) if i != cut for line in s]
    title = STEP_MARKER.match(sections[cut][0]).group("title").strip()  # type: ignore[union-attr]
    return "\n".join(kept) + "\n", title


def check_environment(path: Path) -> tuple[Check, TaskInfo | None]:
    """Static integrity; the TaskInfo when the task directory at least loads."""
    try:
        info = load_task(path)
    except TaskError as exc:
        return Check(ok=False, reason=str(exc)), None
    env_dir = path / "environment"
    try:
        plan = parse_dockerfile(env_dir / "Dockerfile")
    except (DockerfileRefused, OSError) as exc:
        return Check(ok=False, reason=f"{path.name}: {exc}"), info
    for step in plan.steps:
        for source in step.sources if isinstance(step, CopyStep) else ():
            src = (env_dir / source).resolve()
            if not src.exists() or not src.is_relative_to(env_dir.resolve()):
                return Check(ok=False, reason=f"{path.name}: environment/Dockerfile:{step.line}: COPY source "
                                              f"'{source}' not found under environment/; add it or fix the line"), info
    script = (path / "solution" / "solve.sh").read_text()
    if not parse_steps(script) or not effective_steps(script):
        return Check(ok=False, reason=f"{path.name}: solution/solve.sh: no '# step:' section with a command; "
                                      "split the reference solution into named steps"), info
    return Check(reason="Dockerfile in the subset, COPY sources present, test.sh and stepped solve.sh"), info


def check_triviality(info: TaskInfo, config: CheckConfig) -> TrivialityCheck:
    steps = effective_steps((info.path / "solution" / "solve.sh").read_text())
    words = len(info.instruction.split())
    trivial = steps < config.min_steps or words < config.min_words
    return TrivialityCheck(steps=steps, words=words, flags=["trivial"] if trivial else [],
                           reason=f"{steps} steps (min {config.min_steps}), {words} words (min {config.min_words})")


def _reward_problem(label: str, outcome: TrialOutcome) -> str | None:
    if outcome.reward is not None:
        return None
    if outcome.exception and "reward" not in outcome.exception.lower():
        return f"{label} trial failed: {outcome.exception}"
    return f"tests/test.sh wrote no usable /logs/verifier/reward.txt ({label} run)"


async def _no_probe() -> None:
    return None


async def _evaluator_trials(path: Path, repeats: int, partial: str | None, trials: Path,
                            environment: EnvironmentConfig | str, probes: bool
                            ) -> tuple[list[TrialOutcome], TrialOutcome, TrialOutcome | None, ForgeryProbe | None]:
    """(oracle runs, nop, the ``partial`` solution's run, the forgery probe), all at once, as real trials."""
    oracle = AgentConfig(name="oracle")
    runs = [run_trial(path, oracle, trials, environment, f"{path.name}__oracle{i + 1}") for i in range(repeats)]
    runs.append(run_trial(path, AgentConfig(name="nop"), trials, environment, f"{path.name}__nop"))
    if partial:
        runs.append(run_solution(path, partial, trials, environment, f"{path.name}__partial"))
    forgery = probe_forgery(path, trials, environment) if probes else _no_probe()
    outcomes, probe = await asyncio.gather(asyncio.gather(*runs), forgery)
    return outcomes[:repeats], outcomes[repeats], outcomes[-1] if partial else None, probe


async def check_evaluator(path: Path, config: CheckConfig, trials: Path, environment: EnvironmentConfig | str,
                          probes: bool = True) -> EvaluatorCheck:
    """Oracle × repeats, nop and (``probes``) the partial solution and the forgery probe."""
    partial = partial_solution((path / "solution" / "solve.sh").read_text()) if probes else None
    oracles, nop, cut_run, probe = await _evaluator_trials(path, config.repeats, partial[0] if partial else None,
                                                           trials, environment, probes)
    names = [f"oracle {i + 1}" for i in range(config.repeats)] if config.repeats > 1 else ["oracle"]
    labelled = [*zip(names, oracles, strict=True), ("nop", nop)]
    result = EvaluatorCheck(oracle=[o.reward for o in oracles], nop=nop.reward)
    if partial and cut_run:
        result.partial, result.partial_cut = cut_run.reward, partial[1]
        labelled.append(("partial", cut_run))
    problems = [p for label, o in labelled if (p := _reward_problem(label, o))] + _expectation_problems(
        oracles, nop, config.repeats) + _forgery_problems(result, probe)
    if result.partial is not None and result.partial >= 1.0:
        result.flags.append("weakly-verified")
    result.ok = not problems
    passes = sum(o.passed for o in oracles)
    cut = f", partial (without '{partial[1]}') {_fmt(result.partial)}" if partial else ""
    forged = f", forgery {_fmt(probe.reward)}" if probe else ""
    result.reason = f"{path.name}: " + "; ".join(problems) if problems else \
        f"oracle {passes}/{config.repeats}, nop {_fmt(nop.reward)}{cut}{forged}"
    return result


def _forgery_problems(result: EvaluatorCheck, probe: ForgeryProbe | None) -> list[str]:
    """Record the probe in ``result`` (flag ``reward-forgeable`` when an attack was rewarded); its problems."""
    if probe is None:
        return []
    result.forgery, result.forged_by = probe.reward, probe.forged_by
    if probe.forged_by:
        result.flags.append("reward-forgeable")
    return probe.problems


def _expectation_problems(oracles: list[TrialOutcome], nop: TrialOutcome, repeats: int) -> list[str]:
    """The oracle must be rewarded 1 on every run, nop 0 (runs without a reward are reported apart)."""
    problems = []
    passes = sum(o.passed for o in oracles)
    if passes == 0 and all(o.reward is not None for o in oracles):
        problems.append(f"oracle got reward {oracles[0].reward:g}, expected 1")
    elif 0 < passes < repeats:
        problems.append(f"oracle is flaky: rewarded 1 on {passes}/{repeats} runs")
    if nop.reward not in (None, 0.0):
        problems.append(f"nop got reward {nop.reward:g}, expected 0")
    return problems


def _fmt(value: float | None) -> str:
    return "none" if value is None else f"{value:g}"


async def check_judge(path: Path, config: CheckConfig) -> JudgeCheck:
    assert config.judge is not None
    verdict = await judge_task(path, config.judge)
    result = JudgeCheck(model=config.judge.model, scores=verdict.scores, reasons=verdict.reasons, error=verdict.error)
    if verdict.error:
        result.flags.append("judge-unparsed" if verdict.unparsed else "judge-error")
        result.reason = verdict.error
        return result
    low = [d for d, score in verdict.scores.items() if score < config.judge_min_score]
    result.flags += ["judge-low"] if low else []
    result.reason = ", ".join(f"{d} {s}" for d, s in verdict.scores.items())
    return result


async def check_task(path: Path, config: CheckConfig, out: Path, environment: EnvironmentConfig | str) -> CheckReport:
    """Every check of one task; trials and the judge only when the environment check passed."""
    started = time.monotonic()
    environment_check, info = check_environment(path)
    report = CheckReport(task=path.name, path=str(path), environment=environment_check,
                         metadata=info.metadata if info else {})
    if info is not None:
        report.non_triviality = check_triviality(info, config)
    if environment_check.ok:
        evaluator = check_evaluator(path, config, out / "trials", environment)
        if config.judge:
            report.evaluator, report.judge = await asyncio.gather(evaluator, check_judge(path, config))
        else:
            report.evaluator = await evaluator
    report.seconds = round(time.monotonic() - started, 2)
    return report


async def for_each_task[R](paths: list[Path], concurrency: int, work: Callable[[Path], Awaitable[R]],
                            broken: Callable[[Path, str], R], on_done: Callable[[R], None] | None = None) -> list[R]:
    """``work`` on every task, ``concurrency`` at a time; a task whose work raises becomes ``broken(path,
    "<name>: <error>")`` and the others still run; ``on_done`` sees each result as it comes."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(path: Path) -> R:
        async with gate:
            try:
                result = await work(path)
            except Exception as exc:  # noqa: BLE001 - one broken task must not stop the others
                result = broken(path, f"{path.name}: {type(exc).__name__}: {exc}")
        if on_done:
            on_done(result)
        return result

    return list(await asyncio.gather(*(one(p) for p in paths)))


async def check_tasks(paths: list[Path], out: Path, environment: EnvironmentConfig | str, config: CheckConfig,
                      on_done: Callable[[CheckReport], None] | None = None) -> list[CheckReport]:
    """Check every task (``config.concurrency`` at a time); write ``check.json`` to ``out``."""
    out.mkdir(parents=True, exist_ok=True)

    def broken(path: Path, reason: str) -> CheckReport:
        return CheckReport(task=path.name, path=str(path), environment=Check(ok=False, reason=reason))

    started = time.monotonic()
    reports = await for_each_task(paths, config.concurrency, lambda p: check_task(p, config, out, environment),
                                  broken, on_done)
    write_json(out / "check.json", {
        "config": config.model_dump(mode="json"),
        "tasks": [r.model_dump(mode="json") for r in reports],
        "passed": sum(r.ok for r in reports), "failed": sum(not r.ok for r in reports),
        "flagged": sum(bool(r.flags) for r in reports), "wall_seconds": round(time.monotonic() - started, 2)})
    return reports


def _entry_path(path: Path) -> str:
    relative = os.path.relpath(path)
    return str(path) if relative.startswith("..") else relative


def update_manifest(manifest_path: Path, reports: list[CheckReport]) -> str:
    """Set each task's ``check`` field (creating missing entries); save atomically; return the hash."""
    manifest = load_manifest(manifest_path)
    checked_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    for report in reports:
        entry = manifest.tasks.get(report.task) or entry_for(Path(_entry_path(Path(report.path))), report.metadata)
        entry.check = manifest_record(report, checked_at)
        manifest.tasks[report.task] = entry
    return save_manifest(manifest_path, manifest)
