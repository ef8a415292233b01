"""The command layer: list options take several values after one flag, one error path, and output that
is not a terminal is wide enough that tables are not cut."""

from __future__ import annotations

from typer.testing import CliRunner

from modularrsi.cli import app
from modularrsi.cli.common import PIPE_WIDTH, console, err, fit_output, spread

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


# ------------------------------------------------------------------- bad input: one line, nothing written
import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from testutil import REPO  # noqa: E402

TASK = REPO / "tasks" / "pool" / "argparse-logq-cli"
GEN0 = REPO / "src" / "modularrsi" / "harness" / "baseline"


def cli(*args: str):
    """The command in this process (fast: no interpreter start); wide output, so one line stays one."""
    return runner.invoke(app, list(args), env={"COLUMNS": "400"})


def refused_in_one_line(done, *needles: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.exit_code == 2 and len(lines) == 1 and done.stdout.strip() == "", (done.stdout, done.stderr)
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.mark.parametrize("flag, value, field", [("-k", "0", "'k'"), ("-n", "-1", "'concurrency'"),
                                                ("--max-turns", "0", "'max_turns'")])
@pytest.mark.parametrize("command", ["run", "eval", "evolve"])
def test_a_bad_number_is_one_line(tmp_path, command, flag, value, field):
    base = {"run": ["run", "--tasks", str(TASK)], "eval": ["eval", "--generation", str(GEN0), "--tasks", str(TASK)],
            "evolve": ["evolve", "--tasks", str(TASK)]}[command]
    if command == "evolve" and flag == "--max-turns":
        pytest.skip("evolve takes its turn limit from --config")
    done = cli(*base, flag, value, "--out", str(tmp_path / "out"))
    refused_in_one_line(done, field, f"(given: {value})")
    assert not (tmp_path / "out").exists()


def broken_tasks(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    cases = {}
    for name, damage, needle in (("toml", "syntax", "task.toml: not valid TOML"),
                                 ("no-tests", "tests", "tests/test.sh: missing"),
                                 ("empty-instruction", "instruction", "instruction.md: missing or empty"),
                                 ("no-solution", "solution", "sim plays from the reference solution")):
        task = tmp_path / "tasks" / name
        shutil.copytree(TASK, task)
        if damage == "syntax":
            (task / "task.toml").write_text((task / "task.toml").read_text() + "\n[[[\n")
        elif damage == "instruction":
            (task / "instruction.md").write_text("  \n")
        else:
            shutil.rmtree(task / damage)
        cases[name] = (task, needle)
    return cases


@pytest.mark.parametrize("case", ["toml", "no-tests", "empty-instruction", "no-solution"])
def test_a_task_no_trial_could_use_is_refused_before_the_first_trial(tmp_path, case):
    task, needle = broken_tasks(tmp_path)[case]
    for args in (["run", "--tasks", str(task)], ["eval", "--generation", str(GEN0), "--tasks", str(task)],
                 ["evolve", "--tasks", str(task)]):
        done = cli(*args, "--out", str(tmp_path / "out"))
        refused_in_one_line(done, f"task {case}", needle)
        assert not (tmp_path / "out").exists(), args


def test_a_model_that_cannot_answer_is_refused_before_the_first_trial(tmp_path):
    config = tmp_path / "endpoint.yaml"
    config.write_text("roles: {agent: {model: hosted_vllm/some-model, api_base: 'http://127.0.0.1:9/v1'}}\n")
    for args, needles in ((["--model", "not-a-model"], ("'not-a-model'", "LiteLLM cannot resolve it")),
                          (["--model", f"scripted:{tmp_path / 'nope.json'}"], ("nope.json", "No such file")),
                          (["--config", str(config)], ("endpoint http://127.0.0.1:9/v1 does not answer",))):
        done = cli("run", "--tasks", str(TASK), *args, "--out", str(tmp_path / "out"))
        refused_in_one_line(done, *needles)
        assert not (tmp_path / "out").exists()
    for command in (["evolve", "--tasks", str(TASK)], ["eval", "--generation", str(GEN0), "--tasks", str(TASK)],
                    ["tasks", "difficulty", str(TASK.parent), "-k", "1", "--manifest", str(tmp_path / "m.json")]):
        model = ["--models", "sim,not-a-model"] if command[0] == "tasks" else ["--model", "not-a-model"]
        done = cli(*command, *model, "--out", str(tmp_path / "out"))
        refused_in_one_line(done, "'not-a-model'")
        assert not (tmp_path / "out").exists() and not (tmp_path / "m.json").exists()


def test_a_run_whose_attempts_are_all_invalid_lists_them_and_exits_non_zero(tmp_path):
    from modularrsi.offline.fake_server import FakeOpenAIServer
    from modularrsi.rollouts.results import RunResults

    with FakeOpenAIServer(responder=lambda request: {"status": 400, "message": "model not found"}) as server:
        config = tmp_path / "c.yaml"
        config.write_text(f"k: 1\nroles: {{agent: {{model: hosted_vllm/missing, api_base: '{server.base_url}'}}}}\n")
        done = subprocess.run([sys.executable, "-m", "modularrsi.cli", "run", "--tasks", str(TASK), "--config",
                               str(config), "--out", str(tmp_path / "run")], capture_output=True, text=True,
                              timeout=600, env={**os.environ, "COLUMNS": "400"})
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    assert "all 1 attempts were invalid" in done.stderr and "model_error" in done.stderr
    assert "1 invalid attempt(s): left out of Acc" in done.stdout and f"{TASK.name}__a0" in done.stdout
    results = RunResults.model_validate_json((tmp_path / "run" / "results.json").read_text())
    assert results.overall.invalid_attempts == 1 and results.attempts[0].invalid.startswith("agent ending model_error")


def test_eval_refuses_tasks_the_frozen_library_evolved_on_by_name_content_or_dataset(tmp_path):
    import json

    from modularrsi.evolve.libraryops import copy_generation
    from modularrsi.evolve.overlap import record_evolution_tasks

    frozen = tmp_path / "frozen"
    copy_generation(GEN0, frozen)
    record_evolution_tasks(frozen, [TASK])
    renamed = tmp_path / "held" / "logq-cli-copy"
    shutil.copytree(TASK, renamed)
    registry = tmp_path / "registry.json"
    registry.write_text(json.dumps([{"name": "mini", "version": "1.0", "description": "one pool task",
                                     "tasks": [{"name": TASK.name, "path": str(TASK)}]}]))
    for source, name in ((["--tasks", str(TASK)], TASK.name), (["--tasks", str(renamed)], renamed.name),
                         (["--dataset", "mini@1.0", "--registry-path", str(registry)], TASK.name)):
        done = cli("eval", "--generation", str(frozen), *source, "--out", str(tmp_path / "ev"))
        refused_in_one_line(done, f"refusing to evaluate on 1 task(s) {frozen} evolved on (e.g. {name})",
                            "--allow-overlap")
        assert not (tmp_path / "ev").exists()
    allowed = cli("eval", "--generation", str(frozen), "--tasks", str(TASK), "-k", "1", "--allow-overlap",
                  "--out", str(tmp_path / "ev"))
    assert allowed.exit_code == 0, allowed.stdout[-2000:] + allowed.stderr[-2000:]
    assert "NOT held out: 1 task(s) the candidate evolved on" in " ".join(allowed.stdout.split())
    assert "not significant: at the rates seen (0 fixed, 0 broken of 1 tasks) no number of tasks" in \
        " ".join(allowed.stdout.split())  # gen_0 against a copy of itself
    assert json.loads((tmp_path / "ev" / "eval.json").read_text())["overlap"] == [TASK.name]


# ------------------------------------------------------------------------ one meaning per flag, everywhere
def every_command():
    import typer.main

    def walk(command, path):
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, (*path, name)) if hasattr(sub, "commands") else [((*path, name), sub)]

    return list(walk(typer.main.get_command(app), ()))


def test_short_flags_mean_one_thing_on_every_command():
    meaning = {"-n": {"concurrency"}, "-k": {"k", "attempts"}, "-m": {"model", "models"}}
    seen = {flag: [] for flag in meaning}
    for path, command in every_command():
        for param in command.params:
            for flag in meaning:
                if flag in getattr(param, "opts", []):
                    assert param.name in meaning[flag], f"modularrsi {' '.join(path)} {flag} sets {param.name}"
                    seen[flag].append(" ".join(path))
    assert {"run", "evolve", "eval", "tasks difficulty", "tasks check", "tasks validate"} <= set(seen["-n"])
    assert {"run", "evolve", "eval", "tasks difficulty"} <= set(seen["-k"])


def test_every_command_that_runs_trials_takes_env():
    options = {" ".join(path): {o for p in c.params for o in getattr(p, "opts", [])} for path, c in every_command()}
    for name in ("run", "evolve", "eval", "tasks difficulty", "tasks check", "tasks validate"):
        assert "--env" in options[name], name


@pytest.mark.parametrize("command", ["run", "evolve", "eval"])
def test_resume_refuses_any_other_setting_but_the_caps(tmp_path, command):
    done = cli(command, "--resume", str(tmp_path / "r"), "--model", "sim:perfect", "-k", "2")
    refused_in_one_line(done, "--resume continues", "drop", "--model", "-k", "only --max-tokens and --max-cost")
    assert not (tmp_path / "r").exists()
    missing = cli(command, "--resume", str(tmp_path / "r"), "--max-tokens", "1000")  # caps pass the refusal
    refused_in_one_line(missing, f"{tmp_path / 'r'}: not", "(no config.yaml)")


def test_help_shows_the_settings_defaults_in_panels():
    shown = cli("evolve", "--help").output
    for text in ("Epochs per lane. (default 3)", "Attempts per task (per task and epoch in an evolution). (default 3)",
                 "Budget", "Ablations", "Run directory"):
        assert text in " ".join(shown.split()), text
    printed = cli("evolve", "--print-config").output
    assert "#   agent:" in printed and "#     api_key_env: null" in printed  # the roles' sub-schema
