"""Task loading: structure checks with one-line errors, reference steps, discovery."""

import pytest

from modularrsi.tasks import TaskError, discover, load_task, parse_steps


def test_valid_task_loads_with_metadata_and_steps(task_factory):
    task = load_task(task_factory())
    assert task.category == "systems-and-os" and task.difficulty == "easy" and task.domain == "terminal"
    assert [s.title for s in task.steps] == ["write it"]


@pytest.mark.parametrize("break_it, file, problem", [
    (lambda t: (t / "task.toml").write_text("[environment\n"), "task.toml", "not valid TOML"),
    (lambda t: (t / "task.toml").write_text("[verifier]\ntimeout_sec = 'soon'\n"), "task.toml",
     "field 'verifier.timeout_sec'"),
    (lambda t: (t / "instruction.md").unlink(), "instruction.md", "missing or empty"),
    (lambda t: (t / "tests" / "test.sh").unlink(), "tests/test.sh", "missing"),
    (lambda t: (t / "solution" / "solve.sh").unlink(), "solution/solve.sh", "missing"),
])
def test_broken_tasks_name_file_and_problem(task_factory, break_it, file, problem):
    path = task_factory()
    break_it(path)
    with pytest.raises(TaskError) as err:
        load_task(path)
    assert err.value.file == file and problem in err.value.problem
    assert str(err.value).startswith(f"{path.name}: {file}: ")


def test_parse_steps_keeps_preamble_heredocs_and_tags():
    script = """#!/bin/bash
set -e
cd /app
# step: write config
cat > conf.ini <<'X'
# step: not a marker inside a heredoc? it is a comment line, still split
X
# step[easy-to-miss]: also the backup
cp conf.ini conf.bak
"""
    steps = parse_steps(script)
    assert [s.easy_to_miss for s in steps][-1] is True
    assert steps[0].script.startswith("set -e\ncd /app\n")
    assert steps[-1].script == "cp conf.ini conf.bak\n"


def test_discover_expands_pools_and_rejects_duplicates(tmp_path, task_factory):
    a = task_factory(name="alpha")
    task_factory(name="beta")
    assert [p.name for p in discover([a.parent])] == ["alpha", "beta"]
    assert discover([a]) == [a]
    with pytest.raises(FileNotFoundError, match="no such task"):
        discover([tmp_path / "nope"])
    other = tmp_path / "other"
    other.mkdir()
    (other / "alpha").mkdir()
    (other / "alpha" / "task.toml").write_text("")
    with pytest.raises(ValueError, match="appears twice"):
        discover([a.parent, other])


def test_discover_lists_only_folders_with_a_task_toml(tmp_path, task_factory):
    a = task_factory(name="alpha")
    (a.parent / "notes").mkdir()  # not a task: skipped
    assert [p.name for p in discover([a.parent])] == ["alpha"]
    (a / "task.toml").unlink()  # a task folder without its task.toml: its parts are never listed as tasks
    with pytest.raises(FileNotFoundError, match="alpha: looks like a task but has no task.toml"):
        discover([a])
    with pytest.raises(FileNotFoundError, match="no task in it"):
        discover([a.parent])
