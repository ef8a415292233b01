"""Terminal views with rich: the list of run directories (``modularrsi runs``) and one run's summary
(``modularrsi show``), live while the run is in progress.

Progress of an evolution run is read from its files only: attempts done are the trials of
``samples/*/trials`` with a ``result.json``; planned are the attempts the sample runs started so far
planned (their ``state.json``), next to the full plan lanes × epochs × tasks × k (an upper bound: lanes
that sample the same generation share attempts); gate outcomes from ``history.jsonl``; tokens and cost
from ``budget.json``.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from modularrsi.report.files import UnreadableRun, read_model
from modularrsi.report.gather import SIM_LABEL, Report, detect_kind, gather
from modularrsi.rollouts.state import RunState


def discover_runs(root: Path) -> list[Path]:
    """Run directories directly under ``root`` (evolve, run or eval), by name."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and detect_kind(p) is not None)


def status_of(report: Report) -> str:
    if report.state.status:
        return report.state.status
    if report.kind == "eval":
        return "done" if report.eval else "incomplete"
    return "done" if report.results else "unknown"


def epochs_of(report: Report) -> str:
    if report.kind != "evolve":
        return "—"
    done = min((lane.epochs_done for lane in report.lanes), default=0)
    return f"{done}/{report.planned_epochs if report.planned_epochs is not None else '?'}"


def runs_table(root: Path) -> Table:
    table = Table(title=f"Runs in {root}")
    for column in ("id", "kind", "status", "epochs", "best Acc", "model"):
        table.add_column(column, justify="right" if column == "best Acc" else "left")
    for run_dir in discover_runs(root):
        try:
            report = gather(run_dir, with_case=False, with_lineage=False)
        except UnreadableRun as exc:
            table.add_row(run_dir.name, "?", f"unreadable: {exc}", "—", "—", "")
            continue
        except ValueError:
            continue
        best = report.best_acc()
        table.add_row(run_dir.name, report.kind, status_of(report), epochs_of(report),
                      "—" if best is None else f"{best:.3f}", "sim" if report.simulated else "")
    return table


def _attempts(report: Report) -> tuple[int, int]:
    """(done, planned) attempts of the sampling runs started so far (a plain run: its own)."""
    if report.kind != "evolve":
        return report.state.attempts_done or 0, report.state.attempts_total or 0
    samples = report.run_dir / "samples"
    done = sum(1 for _ in samples.glob("*/trials/*/result.json"))
    planned = sum((read_model(s, RunState) or RunState()).attempts_total or 0 for s in samples.glob("*/state.json"))
    return done, max(planned, done)


def _full_plan(report: Report) -> int | None:
    tasks = len(report.lock.tasks) if report.lock else 0
    if not (report.config and tasks and report.planned_epochs):
        return None
    return len(report.lanes) * report.planned_epochs * tasks * report.config.k


def _lanes_table(report: Report) -> Table:
    table = Table(title="Lanes")
    for column in ("lane", "epochs", "generation", "last Acc", "promoted", "now"):
        table.add_column(column)
    for lane in report.lanes:
        last = next((e for e in reversed(lane.epochs) if e.acc is not None), None)
        current = lane.epochs[-1] if lane.epochs else None
        now = "—" if current is None or current.done else f"epoch {current.epoch}: " + (
            "gates" if current.aggregation else "analysis" if current.buckets else "sampling")
        table.add_row(lane.name, f"{lane.epochs_done}/{report.planned_epochs or '?'}", lane.generation or "—",
                      "—" if last is None else f"{last.acc:.3f} (epoch {last.epoch})",
                      str(sum(len(e.promoted) for e in lane.epochs)), now)
    return table


def _gates_line(report: Report) -> Text:
    outcomes = Counter("promoted" if c.outcome == "promoted" else "editor failed" if c.outcome == "editor_failed"
                       else f"rejected at {c.rejected_by}" for c in report.changes)
    body = ", ".join(f"{name} {count}" for name, count in sorted(outcomes.items())) or "none yet"
    return Text(f"gate outcomes ({len(report.changes)} proposals): {body}")


def summary(report: Report) -> Group:
    """The terminal summary of one gathered run."""
    parts: list = [Text(f"{report.run_id} — {report.kind}, {status_of(report)}"
                        + (f", stage {report.state.stage}" if report.state.stage else ""), style="bold")]
    if report.simulated:
        parts.append(Text(SIM_LABEL, style="yellow"))
    if report.kind == "evolve":
        parts.append(_lanes_table(report))
        done, planned = _attempts(report)
        plan = _full_plan(report)
        parts.append(Text(f"attempts: {done} done of {planned} planned by the sample runs started so far"
                          + (f" (full plan ≤ {plan})" if plan else "")))
        parts.append(_gates_line(report))
    elif report.results:
        o = report.results.overall
        parts.append(Text(f"Acc {o.acc:.3f} [{o.acc_ci95[0]:.3f}, {o.acc_ci95[1]:.3f}] · Pass@{o.k} {o.pass_at_k:.3f}"
                          f" · Pass^{o.k} {o.pass_hat_k:.3f} · mean steps {o.mean_steps:.1f} on {o.tasks} tasks"))
    elif report.kind == "run":
        done, planned = _attempts(report)
        parts.append(Text(f"attempts: {done} done of {planned} planned"))
    if report.budget:
        spent = report.budget.spent
        parts.append(Text(f"tokens {spent.tokens:,} · cost {spent.cost_usd:.4f} USD · {spent.calls:,} model calls"))
    if report.eval:
        acc = report.eval.delta("acc")
        result = report.eval
        parts.append(Text(f"eval: Acc {acc.baseline:.3f} → {acc.candidate:.3f} ({acc.diff:+.3f} [{acc.ci95[0]:+.3f}, "
                          f"{acc.ci95[1]:+.3f}]), sign test over tasks p={result.sign_test_p:.3g}; "
                          f"fixed {result.fixed}, broken {result.broken}"))
    return Group(*parts)


def _light(run_dir: Path) -> Report:
    return gather(run_dir, with_case=False, with_lineage=False)


def show(run_dir: Path, console: Console, once: bool = False, interval: float = 1.0) -> None:
    """Print the summary; while the run's status is ``running`` (and not ``once``) refresh it every
    ``interval`` seconds until it is not, or until Ctrl-C."""
    report = _light(run_dir)
    if once or report.state.status != "running":
        console.print(summary(report))
        return
    try:
        with Live(summary(report), console=console, refresh_per_second=4) as live:
            while report.state.status == "running":
                time.sleep(interval)
                report = _light(run_dir)
                live.update(summary(report))
    except KeyboardInterrupt:
        console.print("[dim]stopped watching (the run goes on)[/dim]")
