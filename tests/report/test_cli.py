"""``modularrsi report``, ``runs`` and ``show``: the commands, the live view and the loopback server."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest
from rich.console import Console
from typer.testing import CliRunner

from modularrsi.cli import app
from modularrsi.report.gather import SIM_LABEL
from modularrsi.report.serve import make_server
from modularrsi.report.terminal import show

runner = CliRunner()


def test_report_writes_one_file(synthetic_run, tmp_path):
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["report", str(synthetic_run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert runner.invoke(app, ["report", str(tmp_path / "nothing")]).exit_code == 2


def test_runs_lists_each_kind(synthetic_run, tmp_path):
    shutil.copytree(synthetic_run, tmp_path / "evo", ignore=shutil.ignore_patterns("trials"))
    shutil.copytree(synthetic_run / "eval", tmp_path / "ev", ignore=shutil.ignore_patterns("trials"))
    shutil.copytree(synthetic_run / "eval" / "candidate", tmp_path / "plain", ignore=shutil.ignore_patterns("trials"))
    (tmp_path / "not-a-run").mkdir()
    result = runner.invoke(app, ["runs", str(tmp_path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[1].strip(): line for line in result.output.splitlines() if line.count("│") > 5}
    assert set(rows) == {"evo", "ev", "plain"}
    assert "evolve" in rows["evo"] and "2/2" in rows["evo"] and "done" in rows["evo"]
    assert " eval " in rows["ev"] and " run " in rows["plain"]


def test_show_once_summarises_an_evolution_run(synthetic_run):
    result = runner.invoke(app, ["show", str(synthetic_run), "--once"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert SIM_LABEL in result.output
    for lane in ("agent_loop", "completion", "observation"):
        assert lane in result.output
    history = [json.loads(line) for line in (synthetic_run / "history.jsonl").read_text().splitlines()]
    assert f"gate outcomes ({len(history)} proposals)" in result.output
    spent = json.loads((synthetic_run / "budget.json").read_text())["spent"]
    assert spent["tokens"] > 0 and f"tokens {spent['tokens']:,}" in result.output


def test_show_follows_a_running_run_until_it_is_done(synthetic_run, tmp_path):
    run = tmp_path / "live"
    shutil.copytree(synthetic_run, run, ignore=shutil.ignore_patterns("trials"))
    (run / "state.json").write_text(json.dumps({"status": "running", "stage": "lanes", "epochs": 2}))

    def finish() -> None:
        time.sleep(0.5)
        (run / "state.json").write_text(json.dumps({"status": "done", "stage": "done", "epochs": 2}))

    thread = threading.Thread(target=finish)
    thread.start()
    console = Console(record=True, width=160, force_terminal=False)
    started = time.monotonic()
    show(run, console, interval=0.1)
    thread.join()
    assert time.monotonic() - started < 30
    assert "— evolve, done" in console.export_text()


def test_server_answers_on_loopback_only(tmp_path):
    page = tmp_path / "report.html"
    page.write_text("<!DOCTYPE html><p>hello</p>")
    server = make_server(page, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert server.server_address[0] == "127.0.0.1"
        base = f"http://127.0.0.1:{server.server_port}"
        assert b"hello" in urllib.request.urlopen(f"{base}/", timeout=10).read()
        assert b"hello" in urllib.request.urlopen(f"{base}/report.html", timeout=10).read()
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{base}/../etc/passwd", timeout=10)
    finally:
        server.shutdown()
        server.server_close()


def test_report_serve_prints_its_port_and_stops_on_ctrl_c(synthetic_run, tmp_path):
    """Started with SIGINT ignored, as a shell's background job (CI) starts everything: the server
    still stops on Ctrl-C. No preexec_fn: forking with one in a threaded process can deadlock the child."""
    command = [sys.executable, "-c", "import signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
               "from modularrsi.cli import main; sys.argv[0] = 'modularrsi'; main()",
               "report", str(synthetic_run), "--out", str(tmp_path / "r.html"), "--serve", "--port", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               stdin=subprocess.DEVNULL, start_new_session=True,
                               env={**os.environ, "COLUMNS": "200"})
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    seen: list[str] = []
    try:
        while not any("serving" in line for line in seen):
            try:
                seen.append(lines.get(timeout=60))
            except queue.Empty:
                raise AssertionError(f"not serving after 60 s; its output: {''.join(seen)[-2000:]}") from None
        url = next(line for line in seen if "serving" in line).split()[1]
        assert url.startswith("http://127.0.0.1:")
        assert b"<!DOCTYPE html>" in urllib.request.urlopen(url, timeout=10).read()
        process.send_signal(signal.SIGINT)
        try:
            assert process.wait(timeout=30) == 0
        except subprocess.TimeoutExpired:
            raise AssertionError("still serving 30 s after Ctrl-C; its output: " + "".join(seen)[-2000:]) from None
    finally:
        if process.poll() is None:
            process.kill()


@pytest.mark.parametrize("rel, content, needle", [
    ("eval/eval.json", "{not json", "not valid JSON"),
    ("state.json", "[1]", "expected a JSON object, found list"),
    ("eval/eval.json", '{"k": 3}', "not a EvalResult this version reads"),
    ("config.yaml", "epochs: [unclosed", None),  # unreadable plan: shown as unknown, not a crash
])
def test_damaged_run_files_give_one_line_errors(synthetic_run, tmp_path, rel, content, needle):
    run = tmp_path / "damaged"
    shutil.copytree(synthetic_run, run)
    (run / "state.json").write_text(json.dumps({"status": "running"}))  # no planned epochs: config.yaml is read
    (run / rel).write_text(content)
    for command in (["report", str(run), "--out", str(tmp_path / "r.html")], ["show", str(run), "--once"]):
        result = runner.invoke(app, command, env={"COLUMNS": "300"})
        if needle is None:
            assert result.exit_code == 0, result.output
            continue
        assert result.exit_code == 2, result.output
        assert needle in result.output and str(run / rel) in result.output.replace("\n", "")
    listing = runner.invoke(app, ["runs", str(tmp_path)], env={"COLUMNS": "300"})
    assert listing.exit_code == 0, listing.output
    assert ("unreadable" in listing.output) == (needle is not None)
