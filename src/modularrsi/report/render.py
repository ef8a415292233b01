"""``modularrsi report``: gather a run directory and write one self-contained HTML file.

Sections by kind — evolve: overview, headline, lanes, buckets, findings, gate funnel, Evolution
History, lineage, promoted diffs, flips, case; eval: overview, headline, flips, case; run: overview, results, case.
A section with nothing to show yet (a run in progress) is left out, and so is its navigation link.
"""

from __future__ import annotations

from pathlib import Path

from modularrsi.report import sections as common
from modularrsi.report import sections_evolve as evo
from modularrsi.report.gather import Report, gather
from modularrsi.report.page import Section, render_page
from modularrsi.util.files import write_text


def report_sections(report: Report) -> list[Section]:
    if report.kind == "run":
        parts = [common.overview(report), common.results_section(report.results), common.case_section(report.case)]
    elif report.kind == "eval":
        parts = [common.overview(report), common.headline(report, "Headline: baseline vs candidate", "candidate"),
                 common.flip_matrix(report.eval, "candidate"), common.case_section(report.case)]
    else:
        parts = [common.overview(report), common.headline(report), evo.lanes_section(report),
                 evo.buckets_section(report), evo.findings_section(report), evo.gates_section(report),
                 evo.history_section(report), evo.lineage_section(report), evo.diffs_section(report),
                 common.flip_matrix(report.eval), common.case_section(report.case)]
    return [p for p in parts if p is not None]


def render(report: Report) -> str:
    titles = {"evolve": "Evolution run", "eval": "Evaluation", "run": "Run"}
    subtitle = f"{report.run_dir.resolve()} — generated from the run's files"
    return render_page(f"{titles[report.kind]} {report.run_id}", subtitle, report_sections(report), report.simulated)


def write_report(run_dir: Path, out: Path | None = None) -> Path:
    """Write the report of ``run_dir`` to ``out`` (default ``run_dir/report.html``); returns its path."""
    out = out or Path(run_dir) / "report.html"
    write_text(out, render(gather(Path(run_dir))))
    return out
