"""The command layer: list options take several values after one flag, one error path, and output that
is not a terminal is wide enough that tables are not cut."""

from __future__ import annotations

from typer.testing import CliRunner

from modularrsi.cli import app
from modularrsi.cli_common import PIPE_WIDTH, console, err, fit_output, spread

runner = CliRunner()


def test_list_options_take_several_values_after_one_flag():
    args = ["--tasks", "a", "b", "-k", "3", "--disjoint-from", "m1", "m2", "--tasks", "c"]
    assert spread(args, ("--tasks", "--disjoint-from")) == [
        "--tasks", "a", "--tasks", "b", "-k", "3", "--disjoint-from", "m1", "--disjoint-from", "m2", "--tasks", "c"]
    assert spread(["--tasks", "a", "--tasks", "b"], ("--tasks",)) == ["--tasks", "a", "--tasks", "b"]


def test_run_and_evolve_accept_the_readmes_form_of_tasks(tmp_path):
    missing = [str(tmp_path / "none-a"), str(tmp_path / "none-b")]
    run = runner.invoke(app, ["run", "--tasks", *missing, "-k", "1", "--out", str(tmp_path / "run")])
    assert run.exit_code == 2 and f"{missing[0]}: no such task" in run.output.replace("\n", ""), run.output
    evolve = runner.invoke(app, ["evolve", "--tasks", *missing, "--joint", "--monolithic"])
    assert evolve.exit_code == 2 and "different ablations" in evolve.output, evolve.output


def test_output_without_a_terminal_is_wide(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    fixed = console._width, err._width  # None: rich measures the terminal each time
    try:
        fit_output()  # pytest captures stdout and stderr: not a terminal
        assert console.width == PIPE_WIDTH == err.width
    finally:
        console._width, err._width = fixed
