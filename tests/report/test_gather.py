"""Data gathering and HTML rendering on a synthetic evolution run (every number checked against the files)."""

from __future__ import annotations

import json
import re
from html import escape as html_escape
from pathlib import Path

from modularrsi.evolve.gates.stats import tasks_to_show
from modularrsi.evolve.history import Change
from modularrsi.report.gather import SIM_LABEL, detect_kind, gather
from modularrsi.report.render import render, report_sections


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_kinds(synthetic_run):
    assert detect_kind(synthetic_run) == "evolve"
    assert detect_kind(synthetic_run / "eval") == "eval"
    assert detect_kind(synthetic_run / "eval" / "baseline") == "run"
    assert detect_kind(synthetic_run / "lanes") is None


def test_lanes_and_buckets_come_from_the_epoch_files(synthetic_run):
    report = gather(synthetic_run)
    assert [lane.name for lane in report.lanes] == ["agent_loop", "completion", "observation"]
    for lane in report.lanes:
        assert [e.epoch for e in lane.epochs] == [0, 1]
        for e in lane.epochs:
            edir = synthetic_run / "lanes" / lane.name / f"epoch_{e.epoch}"
            assert e.acc == json.loads((edir / "sample.json").read_text())["acc"]
            buckets = json.loads((edir / "buckets.json").read_text())
            assert e.buckets.same_epoch_pair_rate == buckets["same_epoch_pair_rate"]
            assert e.buckets.shares == buckets["shares"]
            assert len(e.findings) == len(_lines(edir / "findings.jsonl")) == 8
            assert e.promoted == json.loads((edir / "outcome.json").read_text())["promoted"]
    assert report.simulated
    assert report.best_acc() == max([e.acc for lane in report.lanes for e in lane.epochs]
                                    + [report.eval.baseline.acc, report.eval.candidate.acc])


def test_funnel_counts_every_change_once(synthetic_run):
    report = gather(synthetic_run, with_case=False)
    history = [Change.model_validate(c) for c in _lines(synthetic_run / "history.jsonl")]
    stages, rejections = report.funnel()
    counts = {s.name: s.count for s in stages}
    assert counts["proposed"] == len(history)
    assert counts["promoted"] == sum(c.outcome == "promoted" for c in history)
    assert counts["static"] == sum(any(g.gate == "static" and g.passed for g in c.gates) for c in history)
    assert [s.count for s in stages] == sorted((s.count for s in stages), reverse=True)
    assert len(rejections) == len(history) - counts["promoted"]
    by_id = {c.id: c for c in history}
    for r in rejections:
        change = by_id[r.change]
        assert r.stage == ("editor" if change.outcome == "editor_failed" else change.rejected_by)
        assert r.reason == change.reason


def test_lineage_follows_manifests_and_fates(synthetic_run):
    lineage = gather(synthetic_run, with_case=False).lineage
    frozen = json.loads((synthetic_run / "frozen" / "manifest.json").read_text())
    frozen_keys = {f"{f['module']}/{f['name']}": f["sha256"] for f in frozen["functions"]}
    alive = {(n.key, n.sha) for n in lineage.functions if n.status in ("active", "inactive")}
    assert alive == set(frozen_keys.items())
    assert lineage.stages[0] == "start"
    ids = {n.id for n in lineage.functions}
    assert all(p in ids for n in lineage.functions for p in n.parents)
    assert (synthetic_run / "merged").is_dir()  # the fixture's seed merges a pair
    merge = next(n for n in lineage.functions if n.merged_from)
    assert len(merge.parents) == 2  # the kept function and the one folded into it
    retired = [n for n in lineage.functions if n.status == "retired"]
    assert any(n.note.startswith("merged into") for n in retired)


def test_case_pairs_a_pass_and_a_fail_of_one_task(synthetic_run):
    case = gather(synthetic_run).case
    assert case is not None
    c = case.candidate
    assert c.pass_dir.name.split("__a")[0] == c.fail_dir.name.split("__a")[0] == c.task
    divergent = case.rows[case.divergence.index]
    assert divergent.passing is None or divergent.failing is None or divergent.passing.keys != divergent.failing.keys
    for row in case.rows[: case.divergence.index]:
        assert row.passing.keys == row.failing.keys


def test_flip_matrix_and_headline_from_eval(synthetic_run):
    report = gather(synthetic_run, with_case=False)
    eval_json = json.loads((synthetic_run / "eval" / "eval.json").read_text())
    assert report.eval.sign_test_p == eval_json["sign_test_p"]
    html = render(report)
    assert f"broken {eval_json['broken']}: p = {eval_json['sign_test_p']:.3g};" in html
    assert f"fixed <b class=ok>{eval_json['fixed']}</b>" in html
    not_shown = tasks_to_show(eval_json["tasks"], eval_json["fixed"], eval_json["broken"])
    assert (f"Not significant; {html_escape(not_shown)}." in html) == (eval_json["sign_test_p"] >= 0.05)
    for p, said in ((0.01, False), (0.5, True)):  # both ways, whatever the synthetic run's own p
        report.eval = report.eval.model_copy(update={"sign_test_p": p})
        assert ("would show one" in render(report) or "no number of tasks" in render(report)) == said


def test_html_is_self_contained_and_navigable(synthetic_run):
    report = gather(synthetic_run)
    html = render(report)
    anchors = [s.anchor for s in report_sections(report)]
    assert anchors == ["overview", "headline", "lanes", "buckets", "findings", "gates", "lineage", "diffs", "flips",
                       "case"]
    for anchor in anchors:
        assert f'href="#{anchor}"' in html and f'<section id="{anchor}">' in html
    assert SIM_LABEL in html
    assert not re.search(r'<(script|link|img|iframe)[^>]+(src|href)=', html)
    assert set(re.findall(r'href="([^"#][^"]*)"', html)) == set()
    assert html.count("<svg") >= 6
    promoted = [c for c in _lines(synthetic_run / "history.jsonl") if c["outcome"] == "promoted"]
    assert html.count('<pre class="diff">') == len(promoted)
    for change in promoted:  # who wrote each promoted change: a model, or the offline catalogue editor
        assert f"<td>written by</td><td>{change['editor']}</td>" in html


def test_plain_run_and_eval_directories(synthetic_run):
    runs = [gather(d) for d in sorted((synthetic_run / "samples").iterdir())]
    assert all(run.kind == "run" and run.results is not None for run in runs)
    mixed = [run for run in runs if any(0 < t.passes < t.attempts for t in run.results.per_task)]
    assert mixed and all(run.case is not None for run in mixed)
    assert [s.anchor for s in report_sections(mixed[0])] == ["overview", "results", "case"]
    ev = gather(synthetic_run / "eval")
    assert [s.anchor for s in report_sections(ev)] == ["overview", "headline", "flips", "case"]


def test_a_run_in_progress_renders_what_exists(tmp_path, synthetic_run):
    import shutil

    run = tmp_path / "partial"
    shutil.copytree(synthetic_run, run, ignore=shutil.ignore_patterns("eval", "frozen", "merged", "integration"))
    shutil.rmtree(run / "lanes" / "completion" / "epoch_1")
    (run / "lanes" / "agent_loop" / "epoch_1" / "buckets.json").unlink()  # that stage not written yet
    (run / "state.json").write_text(json.dumps({"status": "running", "stage": "lanes", "epochs": 2}))
    report = gather(run)
    assert report.eval is None
    html = render(report)
    assert 'id="headline"' not in html and 'id="lanes"' in html
    assert [len(lane.epochs) for lane in report.lanes] == [2, 1, 2]
