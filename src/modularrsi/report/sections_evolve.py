"""Sections of an evolution run: lane curves, buckets and pair rates (Fig. 3), findings and directions,
the gate funnel, the lineage of functions and the promoted diffs with their evidence."""

from __future__ import annotations

from modularrsi.evolve.buckets import Bucket
from modularrsi.evolve.findings import Finding
from modularrsi.evolve.history import Change
from modularrsi.report import svg
from modularrsi.report.gather import Report
from modularrsi.report.graph import lineage_svg
from modularrsi.report.highlight import highlight_diff
from modularrsi.report.page import Section
from modularrsi.report.sections import table
from modularrsi.report.views import EpochView

esc = svg.esc
BUCKETS = [(b.value, b.value.replace("_", " ")) for b in Bucket]
BUCKET_COLOURS = {"all_pass_efficient": "c2", "all_pass_wasteful": "c5", "mixed": "c0", "fixable_fail": "c1",
                  "stuck_fail": "c3", "unreachable": "c8", "infra": "c9"}
RATES = [("same_epoch_pair_rate", "same-epoch pair"), ("memory_pair_rate", "memory pair"),
         ("unpaired_fail_rate", "unpaired fail"), ("all_pass_rate", "all pass")]


def _epochs(report: Report) -> list[EpochView]:
    return [e for lane in report.lanes for e in lane.epochs]


def lanes_section(report: Report) -> Section | None:
    if not report.lanes:
        return None
    series = [svg.Series(lane.name, [(e.epoch, e.acc, bool(e.promoted)) for e in lane.epochs]) for lane in report.lanes]
    plot = svg.line_chart(series, "Acc of each lane's sample per epoch", "epoch", "Acc")
    rows = [[esc(e.lane), str(e.epoch), "—" if e.acc is None else f"{e.acc:.3f}", str(e.tasks),
             str(len(e.aggregation.directions)) if e.aggregation else "—",
             esc(", ".join(e.promoted)) or '<span class="muted">none</span>',
             esc(e.promoted_as or ""), esc(e.generation or "")] for e in _epochs(report)]
    note = ('<p class="small muted">Each point is the Acc of the lane\'s current generation on that epoch\'s '
            "sample (sample.json); a filled point means the epoch promoted a change (outcome.json).</p>")
    head = ["lane", "epoch", "Acc", "tasks", "directions", "promoted", "as", "generation sampled"]
    return Section("lanes", "Evolution per module (lane)", plot + note + table(head, rows, numeric={2, 3, 4}), "Lanes")


def buckets_section(report: Report) -> Section | None:
    epochs = [e for e in _epochs(report) if e.buckets]
    if not epochs:
        return None
    label = {id(e): f"{e.lane} · epoch {e.epoch}" for e in epochs}
    shares = svg.stacked_bars([(label[id(e)], e.buckets.shares) for e in epochs], BUCKETS,
                              "Bucket shares per lane and epoch", width=900,
                              classes=[BUCKET_COLOURS.get(k, "c9") for k, _ in BUCKETS])
    rates = svg.stacked_bars([(label[id(e)], {k: getattr(e.buckets, k) for k, _ in RATES}) for e in epochs], RATES,
                             "Contrastive-pair rates per lane and epoch (Fig. 3 analogue)",
                             classes=["c0", "c4", "c3", "c2"])
    rows = [[esc(e.lane), str(e.epoch), str(e.buckets.diagnosable),
             *(f"{getattr(e.buckets, k):.2f}" for k, _ in RATES),
             f"{e.buckets.same_epoch_pair_rate + e.buckets.memory_pair_rate:.2f}"] for e in epochs]
    head = ["lane", "epoch", "diagnosable", *(name for _, name in RATES), "contrastive-pair rate"]
    note = ('<p class="small muted">Rates over the diagnosable (non-infrastructure) tasks of the epoch; they sum '
            "to 1. The contrastive-pair rate is same-epoch + memory pairs.</p>")
    return Section("buckets", "Buckets and contrastive pairs",
                   "<h3>Bucket shares</h3>" + shares + "<h3>Pair rates</h3>" + rates + note
                   + table(head, rows, numeric=set(range(2, 8))), "Buckets")


def _finding_row(f: Finding, supports: dict[str, tuple[str, float]]) -> list[str]:
    direction = supports.get(f.task)
    return [esc(f.task), esc(f.kind), '<span class="ok">yes</span>' if f.is_culprit else "no", esc(f.mechanism),
            esc(f.bucket), f"{f.pass_count}/{f.attempts}", esc(f.pair_source or ""),
            f"{esc(direction[0])} ({direction[1]:.2f})" if direction else "", esc(f.divergence[:300]),
            esc(f.suggested_change[:300]), esc(", ".join(map(str, f.evidence_steps[:8])))]


def _epoch_findings(e: EpochView) -> str:
    agg = e.aggregation
    parts = []
    if agg is not None:
        kept = [[esc(d.id), esc(d.mechanism), f"{d.vote:.2f}", str(d.raw_support), esc(", ".join(d.tasks)),
                 esc(d.summary)] for d in agg.directions]
        dropped = [[esc(x.direction.id), f"{x.direction.vote:.2f}", str(x.direction.raw_support),
                    esc(", ".join(x.direction.tasks)), esc(x.reason)] for x in agg.dropped]
        parts.append(f"<h3>Directions chosen ({len(kept)})</h3>" + (table(
            ["direction", "mechanism", "vote", "tasks", "supporting tasks", "summary"], kept, numeric={2, 3})
            if kept else '<p class="muted">none</p>'))
        parts.append(f"<h3>Directions dropped ({len(dropped)})</h3>" + (table(
            ["direction", "vote", "tasks", "supporting tasks", "reason"], dropped, numeric={1, 2})
            if dropped else '<p class="muted">none</p>'))
        parts.append(f'<p class="small muted">{agg.non_voting} finding(s) did not vote (not a culprit).</p>')
    supports = {t: (d.id, d.vote) for d in (agg.directions if agg else []) for t in d.tasks}
    rows = [_finding_row(f, supports) for f in e.findings]
    head = ["task", "kind", "culprit", "mechanism", "bucket", "passes", "pair", "supports (vote)", "divergence",
            "suggested change", "evidence steps"]
    listing = table(head, rows, cls="findings") if rows else '<p class="muted">none</p>'
    parts.append(f"<h3>Findings ({len(rows)})</h3>{listing}")
    return "".join(parts)


def findings_section(report: Report) -> Section | None:
    epochs = [e for e in _epochs(report) if e.findings or e.aggregation]
    if not epochs:
        return None
    blocks = []
    for i, e in enumerate(epochs):
        kept = len(e.aggregation.directions) if e.aggregation else 0
        culprits = sum(f.is_culprit for f in e.findings)
        blocks.append(f'<details{" open" if i == 0 else ""}><summary>{esc(e.lane)} · epoch {e.epoch}: '
                      f"{len(e.findings)} findings, {culprits} culprit, {kept} direction(s) chosen</summary>"
                      f"{_epoch_findings(e)}</details>")
    return Section("findings", "Findings and directions", "".join(blocks), "Findings")


def gates_section(report: Report) -> Section | None:
    if not report.changes:
        return None
    stages, rejections = report.funnel()
    plot = svg.funnel([(s.name, s.count) for s in stages], "Gate funnel: proposed → static → review → execution → "
                      "promoted")
    counts = " → ".join(f"{s.name} {s.count}" for s in stages)
    rows = [[esc(r.change), f'<span class="bad">{esc(r.stage)}</span>', esc(r.reason)] for r in rejections]
    body = (f"<p>{esc(counts)}</p>" + plot + f"<h3>Rejections ({len(rows)})</h3>"
            + (table(["change", "stopped at", "reason"], rows) if rows else '<p class="muted">none</p>'))
    return Section("gates", "Gate funnel", body, "Gates")


def lineage_section(report: Report) -> Section | None:
    lineage = report.lineage
    if lineage is None:
        return None
    rows = [[esc(g.label), esc(g.id), esc(", ".join(g.parents) or "—"), esc(g.created_by), str(len(g.functions))]
            for g in lineage.generations]
    retired = [[esc(f.key), esc(f.sha[:10]), esc(f.born), esc(f.note)] for f in lineage.functions
               if f.status == "retired"]
    merges = sum(f.merged_from for f in lineage.functions)
    body = (lineage_svg(lineage)
            + f'<p class="small muted">{len(lineage.functions)} function versions, {merges} merge result(s), '
              f"{len(retired)} retired. Hover a box for its parents and fate.</p>"
            + "<h3>Generations</h3>" + table(["generation", "id", "parents", "created by", "functions"], rows)
            + (("<h3>Retired functions</h3>" + table(["function", "sha256", "born in", "why"], retired))
               if retired else ""))
    return Section("lineage", "Lineage of functions", body, "Lineage")


def _verdicts(change: Change) -> str:
    return "".join(f'<span class="chip {"ok" if g.passed else "bad"}" title="{esc(g.reason)}">{esc(g.gate)} '
                   f'{"passed" if g.passed else "rejected"}</span>' for g in change.gates)


def diffs_section(report: Report) -> Section | None:
    promoted = report.promoted
    if not report.changes:
        return None
    blocks = []
    for change in promoted:
        gates = table(["gate", "verdict", "reason"], [[esc(g.gate), '<span class="ok">passed</span>' if g.passed else
                                                      '<span class="bad">rejected</span>', esc(g.reason)]
                                                     for g in change.gates])
        evidence = table(["", ""], [["direction", esc(change.direction)], ["summary", esc(change.summary)],
                                    ["vote", f"{change.vote:.2f}"], ["supporting tasks", esc(", ".join(change.tasks))],
                                    ["written by", esc(change.editor)],
                                    ["editor's description", esc(change.description)],
                                    ["files", esc(", ".join(change.files))],
                                    ["promoted as", esc(change.promoted_as or "—")], ["fate", esc(change.fate)]])
        blocks.append(f'<h3 id="change-{esc(change.id.replace("/", "-"))}">{esc(change.id)} · {esc(change.module)} · '
                      f"{esc(change.mechanism)}</h3><p>{_verdicts(change)}</p>{evidence}{gates}"
                      f'<details open><summary>diff</summary><pre class="diff">{highlight_diff(change.diff)}</pre>'
                      "</details>")
    if not blocks:
        blocks.append(f'<p class="muted">No change was promoted ({len(report.changes)} proposed; see the gate '
                      "funnel for why each stopped).</p>")
    return Section("diffs", f"Promoted changes ({len(promoted)})", "".join(blocks), "Diffs")


def _verdict_cell(change: Change) -> str:
    outcome = change.outcome if change.rejected_by is None else f"rejected at {change.rejected_by}"
    colour = "good" if change.outcome == "promoted" else "bad"
    return f'{esc(change.id)}: <span class="{colour}">{esc(outcome)}</span>'


def history_section(report: Report) -> Section | None:
    """The Evolution History as the trajectory memory keeps it, per lane and epoch: what the analysis
    found (and what other lanes referred to this lane's module), the directions and each gate verdict."""
    if not report.history:
        return None
    rows = [[esc(h.lane), str(h.epoch), str(len(h.findings)), str(len(h.referred)),
             "<br>".join(f"{esc(d.id)} ({d.vote:g})" for d in h.directions) or "—",
             "<br>".join(_verdict_cell(c) for c in h.verdicts) or "—"] for h in report.history]
    referred = [f for h in report.history for f in h.referred]
    notes = "".join(f"<li>{esc(h.lane)}, epoch {h.epoch}: {esc(f.lens)} lens blamed {esc(f.locked_module or '')} "
                    f"on {esc(f.task)} — {esc(f.suggested_change or f.divergence)}</li>"
                    for h in report.history for f in h.referred)
    body = (table(["lane", "epoch", "findings", "referred by other lanes", "directions (vote)", "gate verdicts"],
                  rows, numeric={1, 2, 3})
            + (f"<h3>Findings referred to another module ({len(referred)})</h3><ul>{notes}</ul>" if referred else ""))
    return Section("history", "Evolution History", body, "History")
