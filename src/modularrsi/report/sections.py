"""Sections every kind of run shares: overview, headline comparison, flip matrix, results, case view.

Each function takes the gathered :class:`~modularrsi.report.gather.Report` and returns a
:class:`~modularrsi.report.page.Section` (or None when the run has nothing for it yet). Numbers are
formatted here and nowhere computed except the per-side intervals of tokens and cost (a bootstrap over
the tasks of each side's ``results.json``, seeded).
"""

from __future__ import annotations

import numpy as np

from modularrsi.evolve.evaluate import EvalResult
from modularrsi.evolve.gates.stats import tasks_to_show
from modularrsi.evolve.runfiles import EvolveLock
from modularrsi.report import svg
from modularrsi.report.cases import Case, TurnView
from modularrsi.report.gather import Report
from modularrsi.report.page import Section
from modularrsi.rollouts.metrics import METRICS, bootstrap_ci
from modularrsi.rollouts.results import RunResults

esc = svg.esc


def table(head: list[str], rows: list[list[str]], numeric: frozenset[int] | set[int] = frozenset(),
          cls: str = "") -> str:
    """An HTML table; cells are given already escaped/marked up."""
    th = "".join(f'<th{" class=num" if i in numeric else ""}>{h}</th>' for i, h in enumerate(head))
    body = "".join("<tr>" + "".join(f'<td{" class=num" if i in numeric else ""}>{c}</td>' for i, c in enumerate(r))
                   + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def ci(low: float, high: float, fmt: str = ".3f") -> str:
    return f"[{low:{fmt}}, {high:{fmt}}]"


def overview(report: Report) -> Section:
    state, spent = report.state, report.budget.spent if report.budget else None
    lock = report.lock if isinstance(report.lock, EvolveLock) else None
    rows = [["run", esc(report.run_id)], ["kind", esc(report.kind)], ["directory", esc(report.run_dir.resolve())],
            ["status", esc(state.status or ("done" if report.eval or report.results else "unknown"))]]
    if state.stage:
        rows.append(["stage", esc(state.stage)])
    if report.kind == "evolve":
        done = min((lane.epochs_done for lane in report.lanes), default=0)
        rows += [["mode", esc(lock.mode if lock else "—")],
                 ["lanes", esc(", ".join(lane.name for lane in report.lanes))],
                 ["epochs done / planned", f"{done} / {report.planned_epochs or '—'}"],
                 ["evolution tasks", str(len(lock.tasks) if lock else 0)], ["seed", esc(lock.seed if lock else "—")],
                 ["roles", esc(", ".join(f"{k}={v}" for k, v in (lock.roles if lock else {}).items()))],
                 ["changes proposed / promoted", f"{len(report.changes)} / {len(report.promoted)}"]]
        if state.frozen_id:
            rows.append(["frozen generation", esc(state.frozen_id)])
    elif report.results:
        o = report.results.overall
        rows += [["model", esc(report.results.model)], ["generation", esc(report.results.generation)],
                 ["tasks × k", f"{o.tasks} × {o.k}"], ["wall time (s)", f"{report.results.wall_s:.1f}"]]
    elif report.eval:
        rows += [["model", esc(report.eval.model)], ["tasks × k", f"{report.eval.tasks} × {report.eval.k}"]]
    if spent:
        rows.append(["tokens / cost spent (budget ledger)",
                     f"{spent.tokens:,} / {spent.cost_usd:.4f} USD in {spent.calls:,} calls"])
    best = report.best_acc()
    if best is not None:
        rows.append(["best Acc measured", f"{best:.3f}"])
    return Section("overview", "Overview", table(["", ""], rows), "Overview")


def _boot(values: list[float]) -> tuple[float, float] | None:
    return bootstrap_ci(np.asarray(values, dtype=float)) if values else None


def _per_task(results: RunResults | None, metric: str) -> tuple[float, float] | None:
    if results is None:
        return None
    if metric == "tokens":
        return _boot([t.input_tokens + t.output_tokens for t in results.per_task])
    return _boot([t.cost_usd for t in results.per_task])


def headline(report: Report, title: str = "Headline: baseline vs frozen generation", candidate: str = "frozen"
             ) -> Section | None:
    result = report.eval
    if result is None:
        return None
    k = result.k
    names = {"acc": "Acc", "pass_at_k": f"Pass@{k}", "pass_hat_k": f"Pass^{k}", "mean_steps": "mean steps",
             "tokens": "tokens / task", "cost_usd": "cost / task (USD)"}
    rows = []
    for d in result.deltas:
        fmt = ",.0f" if d.metric == "tokens" else ".4f" if d.metric == "cost_usd" else ".3f"
        sides = []
        for side_name, side in (("baseline", result.baseline), ("candidate", result.candidate)):
            interval = getattr(side, f"{d.metric}_ci95", None) or _per_task(report.eval_sides.get(side_name), d.metric)
            value = getattr(side, d.metric) if d.metric in METRICS else \
                (d.baseline if side_name == "baseline" else d.candidate)
            sides += [f"{value:{fmt}}", ci(*interval, fmt) if interval else "—"]
        cls = "ok" if d.diff > 0 else "bad" if d.diff < 0 else ""
        better = d.metric in ("acc", "pass_at_k", "pass_hat_k")
        diff = f'<span class="{cls if better else ""}">{d.diff:+{fmt}}</span>'
        p = f"{result.sign_test_p:.3g}" if d.metric == "acc" else ""
        rows.append([names.get(d.metric, esc(d.metric)), *sides, diff, ci(*d.ci95, "+" + fmt), p])
    head = ["metric", "baseline", "95% CI", candidate, "95% CI", "difference", "paired 95% CI", "paired test p"]
    wil = "n/a (no task changed)" if result.wilcoxon_p is None else f"{result.wilcoxon_p:.3g}"
    note = (f'<p class="small muted">{result.tasks} held-out tasks × k={k}, model {esc(result.model)}, seed '
            f"{result.seed}. Baseline {esc(result.baseline.generation)}, {candidate} "
            f"{esc(result.candidate.generation)}. "
            f"Paired tests count tasks, not attempts: exact two-sided sign test over tasks — fixed "
            f"{result.fixed}, broken {result.broken}: p = {result.sign_test_p:.3g}; Wilcoxon signed-rank on "
            f"per-task Acc: p = {wil}.{_not_shown(result)} Attempt pairs (description only): "
            f"{result.attempt_pairs}, fail→pass "
            f"{result.fail_to_pass}, pass→fail {result.pass_to_fail}. Side intervals of tokens and cost: bootstrap "
            "over tasks; other side intervals from each run's results.json; differences: paired bootstrap over "
            "tasks.</p>")
    return Section("headline", title, table(head, rows, numeric={1, 3, 5, 7}) + note, "Headline")


def _not_shown(result: EvalResult) -> str:
    """For a difference the sign test did not show: the held-out tasks it would need at the rates seen."""
    if result.sign_test_p < 0.05:
        return ""
    return f" Not significant; {esc(tasks_to_show(result.tasks, result.fixed, result.broken))}."


def flip_matrix(result: EvalResult | None, candidate: str = "evolved") -> Section | None:
    if result is None or not result.flips:
        return None
    k = max(f.attempts for f in result.flips)
    cells = [[0] * (k + 1) for _ in range(k + 1)]
    for f in result.flips:
        cells[f.baseline_passes][f.candidate_passes] += 1
    classes = [["empty" if cells[b][c] == 0 else "fix" if c > b else "brk" if c < b else "same"
                for c in range(k + 1)] for b in range(k + 1)]
    labels = [f"{n}/{k}" for n in range(k + 1)]
    plot = svg.heatmap(cells, labels, labels, f"Tasks by passes under the baseline and the {candidate} generation",
                       "baseline passes", f"{candidate} passes", classes)
    status = {"fixed": "ok", "broken": "bad", "unchanged": "muted"}
    rows = [[esc(f.task), f"{f.baseline_passes}/{f.attempts}", f"{f.candidate_passes}/{f.attempts}",
             f'<span class="{status[f.status]}">{f.status}</span>'] for f in result.flips]
    summary = (f"<p>fixed <b class=ok>{result.fixed}</b>, broken <b class=bad>{result.broken}</b>, unchanged "
               f"{result.unchanged} of {result.tasks} tasks. Above the diagonal: more passes with the {candidate} "
               "generation.</p>")
    details = (f"<details><summary>per task ({len(rows)})</summary>"
               f"{table(['task', 'baseline', candidate, 'status'], rows)}</details>")
    return Section("flips", f"Per-task flips: baseline vs {candidate}", summary + plot + details, "Flips")


def results_section(results: RunResults | None) -> Section | None:
    if results is None:
        return None
    o = results.overall
    rows = [[name, f"{getattr(o, key):.3f}", ci(*getattr(o, f"{key}_ci95"))] for key, name in
            (("acc", "Acc"), ("pass_at_k", f"Pass@{o.k}"), ("pass_hat_k", f"Pass^{o.k}"), ("mean_steps", "mean steps"))]
    rows += [["tokens in / out", f"{o.input_tokens:,} / {o.output_tokens:,}", ""],
             ["cost (USD)", f"{o.cost_usd:.4f}", ""],
             ["invalid attempts", str(o.invalid_attempts), ""],
             ["environments", esc(results.environments()), ""]]
    shares = svg.stacked_bars([("tasks", {"all_pass": o.all_pass_share, "mixed": o.mixed_share,
                                          "all_fail": o.all_fail_share})],
                              [("all_pass", "all pass"), ("mixed", "mixed"), ("all_fail", "all fail")],
                              "Share of tasks by outcome of their attempts", classes=["c2", "c0", "c3"])
    per_task = svg.bars([(t.task, t.acc) for t in results.per_task], "Acc per task")
    body = (table(["metric", "value", "95% CI"], rows, numeric={1}) + "<h3>Tasks by outcome</h3>" + shares
            + "<h3>Acc per task</h3>" + per_task)
    return Section("results", f"Results: {results.model} on {o.tasks} tasks × k={o.k}", body, "Results")


def _turn(turn: TurnView | None, divergent: bool) -> str:
    if turn is None:
        return '<span class="muted">(no further decision: the attempt ended)</span>'
    claim = ' <span class="chip">claims completion</span>' if turn.claim else ""
    mark = ' <span class="chip bad">first divergence</span>' if divergent else ""
    keys = f'<pre class="wrap">{esc(turn.keys)}</pre>' if turn.keys else ""
    message = f'<div class="msg">{esc(turn.message)}</div>' if turn.message else ""
    observation = (f'<details><summary class="small">what the agent read next</summary>'
                   f'<pre class="wrap">{esc(turn.observation)}</pre></details>') if turn.observation else ""
    return f"<b>step {turn.step_id}</b>{claim}{mark}{message}{keys}{observation}"


def case_section(case: Case | None) -> Section | None:
    if case is None:
        return None
    c, d = case.candidate, case.divergence
    rows = []
    for row in case.rows:
        divergent = row.index == d.index
        cls = "diverge" if divergent else "same" if row.index < d.index else ""
        rid = ' id="divergence"' if divergent else ""
        rows.append(f'<tr class="{cls}"{rid}><td class="idx">{row.index}</td><td>{_turn(row.passing, divergent)}</td>'
                    f"<td>{_turn(row.failing, divergent)}</td></tr>")
    head = (f'<p>Task <b>{esc(c.task)}</b> ({esc(c.where)}). Both attempts take the same {d.index} decision(s), '
            f"then differ at decision {d.index}: passing step {d.pass_step if d.pass_step is not None else '—'} vs "
            f"failing step {d.fail_step if d.fail_step is not None else '—'} (highlighted).</p>")
    more = '<p class="small muted">Only the first rows are shown.</p>' if case.truncated else ""
    grid = (f'<table class="case"><thead><tr><th class="idx">#</th><th>{esc(c.pass_label)}</th>'
            f'<th>{esc(c.fail_label)}</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')
    return Section("case", "Case: a contrastive pair", head + grid + more, "Case")
