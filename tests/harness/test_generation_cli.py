"""A generation of your own (docs/your-generation.md), as a user goes through it: ``generation new`` →
write a function (the page's own) and activate it → ``generation check`` seals it → ``run`` and
``evolve --generation`` use it; and each mistake a user makes gives exit 2, one line naming the file, and
nothing sealed."""

from __future__ import annotations

import ast
import hashlib
import json
import re
from pathlib import Path

import pytest
import yaml
from testutil import REPO
from typer.testing import CliRunner

import modularrsi.offline.catalogue as catalogue
from modularrsi.cli import app
from modularrsi.evolve.libraryops import copy_generation
from modularrsi.evolve.overlap import record_evolution_tasks
from modularrsi.harness import BASELINE
from modularrsi.harness.checks import declarations
from modularrsi.harness.generation_tools import SIGNATURES, signature_problems
from modularrsi.harness.library import GenerationError, load_generation
from modularrsi.harness.probe import probe
from modularrsi.harness.protocols import CONTRACTS

PAGE = REPO / "docs" / "your-generation.md"
TASK = REPO / "tasks" / "pool" / "argparse-logq-cli"
runner = CliRunner()


def cli(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "400"})


def page_function() -> str:
    """The function file the page tells the reader to save."""
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    assert len(blocks) == 1, "the page shows one function file"
    return blocks[0]


def set_active(gen: Path, module: str, names: list[str]) -> None:
    manifest = json.loads((gen / "manifest.json").read_text())
    manifest["active"][module] = names
    (gen / "manifest.json").write_text(json.dumps(manifest, indent=2))


def test_the_page_walkthrough_new_write_activate_check_run_and_evolve(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    gen0 = load_generation(BASELINE)
    new = cli("generation", "new", "my-gen")
    assert new.exit_code == 0 and f"my-gen: a copy of gen_0 ({gen0.id})" in new.stdout, new.output
    copied = json.loads(Path("my-gen/manifest.json").read_text())
    assert copied["parents"] == [gen0.id] and copied["id"] == gen0.id  # same content, same id

    fn = Path("my-gen/modules/observation/collapse_repeats.py")
    fn.write_text(page_function())
    set_active(Path("my-gen"), "observation", ["collapse_repeats", "limit_output"])
    with pytest.raises(GenerationError, match="collapse_repeats.py: not listed in"):
        load_generation(Path("my-gen"))  # not sealed yet: refused
    check = cli("generation", "check", "my-gen")
    assert check.exit_code == 0 and check.stderr == "" and len(check.stdout.strip().splitlines()) == 1, check.output
    assert f"was {gen0.id}; added observation/collapse_repeats" in check.stdout
    assert "observation: collapse_repeats, limit_output" in check.stdout

    gen = load_generation(Path("my-gen"))
    entry = gen.manifest.entries()["observation/collapse_repeats"]
    assert entry.sha256 == hashlib.sha256(fn.read_bytes()).hexdigest() and gen.id != gen0.id
    assert gen.manifest.parents == [gen0.id] and f"sealed as {gen.id}" in check.stdout
    shaped = probe(gen.functions["observation/collapse_repeats"], "shape", "start\n" + "50%\n" * 10 + "\n\n\ndone")
    assert shaped == \
        "start\n50%\n50%\n50%\n[... the line above repeated 7 more times ...]\n\n\n\ndone"
    sealed = Path("my-gen/manifest.json").read_bytes()
    again = cli("generation", "check", "my-gen")
    assert again.exit_code == 0 and "(seal up to date)" in again.stdout
    assert Path("my-gen/manifest.json").read_bytes() == sealed

    run = cli("run", "--generation", "my-gen", "--tasks", str(TASK), "-k", "1", "--out", "run")
    assert run.exit_code == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert json.loads(Path("run/results.json").read_text())["generation"] == gen.id
    attempt = Path("run/trials") / f"{TASK.name}__a0" / "agent"
    assert json.loads((attempt / "episode.json").read_text())["active"]["observation"] == [
        "collapse_repeats", "limit_output"]
    calls = [json.loads(line) for line in (attempt / "module_trace.jsonl").read_text().splitlines()]
    assert any(c.get("function") == "collapse_repeats" and c.get("callable") == "shape" for c in calls)

    Path("tiny.yaml").write_text(yaml.safe_dump({"tasks": [str(TASK)], "modules": ["observation"], "epochs": 1,
                                                 "k": 1, "concurrency": 2}))
    evolve = cli("evolve", "--config", "tiny.yaml", "--generation", "my-gen", "--out", "evo")
    assert evolve.exit_code == 0, evolve.stdout[-2000:] + evolve.stderr[-2000:]
    assert json.loads(Path("evo/lock.json").read_text())["start"] == gen.id
    assert "observation/collapse_repeats" in load_generation(Path("evo/start")).functions
    assert "observation/collapse_repeats" in load_generation(Path("evo/frozen")).functions
    frozen = cli("generation", "check", "evo/frozen")  # its evolution_tasks.json is allowed beside the manifest
    assert frozen.exit_code == 0 and "(seal up to date)" in frozen.stdout, frozen.output


def test_checking_a_sealed_generation_writes_nothing():
    before = (BASELINE / "manifest.json").read_bytes()
    done = cli("generation", "check", str(BASELINE))
    assert done.exit_code == 0 and "(seal up to date); 5 functions, 5 active" in done.stdout, done.output
    assert (BASELINE / "manifest.json").read_bytes() == before


# --------------------------------------------------------------------------- what a user will do wrong
BAD_SIGNATURE = page_function().replace("def shape(output, ctx):", "def shape(output):")
SYNTAX = page_function().replace("def shape(output, ctx):", "def shape(output, ctx)")
CHECK_WITHOUT_CHECK = '''MODULE = "completion"
ROLE = "additive"
DESCRIPTION = "Refuses a completion claim while the last output shows a Python traceback."
PARAMETERS = {}


def on_claim(reply, output, ctx):
    return None
'''


def _file(rel: str, text: str):
    return lambda gen: (gen / rel).parent.mkdir(parents=True, exist_ok=True) or (gen / rel).write_text(text)


def _symlink(gen: Path) -> None:
    (gen.parent / "elsewhere.py").write_text(page_function())
    (gen / "modules/observation/linked.py").symlink_to(gen.parent / "elsewhere.py")


def _two_cores(gen: Path) -> None:
    source = (gen / "modules/completion/confirm_twice.py").read_text()
    (gen / "modules/completion/confirm_again.py").write_text(source.replace("Treats", "Also treats"))
    set_active(gen, "completion", ["confirm_twice", "confirm_again"])


def _parameters(gen: Path) -> None:
    manifest = json.loads((gen / "manifest.json").read_text())
    next(e for e in manifest["functions"] if e["name"] == "limit_output")["parameters"] = {"max_bytes": 4000}
    (gen / "manifest.json").write_text(json.dumps(manifest))


def _construct(gen: Path) -> None:
    source = page_function().replace('keep = ctx.params["max_repeats"]', 'keep = ctx.notes.read_text()')
    (gen / "modules/observation/collapse_repeats.py").write_text(source)


OBS = "modules/observation/collapse_repeats.py"
CASES = {  # name: (damage, the file the line names, what it says)
    "syntax error": (_file(OBS, SYNTAX), OBS + ":14", "syntax error: expected ':'"),
    "wrong arguments": (_file(OBS, BAD_SIGNATURE), OBS + ":14",
                        "shape(output) does not match the observation contract shape(output, ctx)"),
    "role the module lacks": (_file(OBS, page_function().replace('"additive"', '"core"')), OBS,
                              "ROLE 'core' is not valid for observation (valid: additive)"),
    "callable of another role": (_file("modules/completion/traceback_check.py", CHECK_WITHOUT_CHECK),
                                 "modules/completion/traceback_check.py", "missing contract method 'check'"),
    "forbidden import": (_file(OBS, "import os\n" + page_function()), OBS + ":1", "forbidden import 'os'"),
    "banned construct": (_construct, OBS + ":15", "forbidden attribute '.read_text'"),
    "fails at import time": (_file(OBS, page_function() + "\nraise RuntimeError('boom')\n"), OBS,
                             "fails on import: RuntimeError: boom"),
    "activated, no file": (lambda gen: set_active(gen, "completion", ["confirm_twice", "require_tests"]),
                           "manifest.json", "'require_tests' has no file"),
    "two active cores": (_two_cores, "manifest.json", "completion needs exactly one active core function, has 2"),
    "outside modules/": (_file("observation/collapse_repeats.py", page_function()),
                         "observation/collapse_repeats.py", "move it to modules/observation/collapse_repeats.py"),
    "unknown module dir": (_file("modules/observations/collapse_repeats.py", page_function()),
                           "modules/observations/collapse_repeats.py", "modules/observations/ is not a module"),
    "stray file": (_file("notes.txt", "todo\n"), "notes.txt", "not part of the generation"),
    "symlink": (_symlink, "modules/observation/linked.py", "a symlink"),
    "parameters in the manifest": (_parameters, "manifest.json",
                                   "set PARAMETERS in modules/observation/limit_output.py"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_mistake_is_one_line_naming_the_file_and_nothing_is_sealed(tmp_path, case):
    damage, where, needle = CASES[case]
    gen = tmp_path / "my-gen"
    assert cli("generation", "new", str(gen)).exit_code == 0
    damage(gen)
    before = (gen / "manifest.json").read_bytes()
    done = cli("generation", "check", str(gen))
    lines = done.stderr.strip().splitlines()
    assert done.exit_code == 2 and len(lines) == 1 and done.stdout == "", (done.stdout, done.stderr)
    assert lines[0].startswith(f"error: {gen / where}") and needle in lines[0], lines[0]
    assert (gen / "manifest.json").read_bytes() == before


def test_a_good_file_beside_a_bad_one_is_not_sealed_either(tmp_path):
    gen = tmp_path / "my-gen"
    cli("generation", "new", str(gen))
    (gen / "modules/observation/collapse_repeats.py").write_text(page_function())
    (gen / "modules/observation/broken.py").write_text(SYNTAX)
    set_active(gen, "observation", ["collapse_repeats", "limit_output"])
    before = (gen / "manifest.json").read_bytes()
    done = cli("generation", "check", str(gen))
    assert done.exit_code == 2 and "broken.py:14: syntax error" in done.stderr
    assert (gen / "manifest.json").read_bytes() == before
    with pytest.raises(GenerationError):
        load_generation(gen)


def test_a_file_saved_with_windows_line_endings_is_sealed_as_the_loader_reads_it(tmp_path):
    gen = tmp_path / "my-gen"
    cli("generation", "new", str(gen))
    (gen / "modules/observation/collapse_repeats.py").write_bytes(page_function().replace("\n", "\r\n").encode())
    set_active(gen, "observation", ["collapse_repeats", "limit_output"])
    done = cli("generation", "check", str(gen))
    assert done.exit_code == 0, done.output
    assert "observation/collapse_repeats" in load_generation(gen).functions


def test_check_without_a_generation_says_how_to_make_one(tmp_path):
    (tmp_path / "empty").mkdir()
    done = cli("generation", "check", str(tmp_path / "empty"))
    assert done.exit_code == 2 and f"{tmp_path / 'empty' / 'manifest.json'}: missing" in done.stderr
    assert "modularrsi generation new" in done.stderr


def test_new_refuses_a_non_empty_directory_and_copies_any_generation(tmp_path):
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "keep.txt").write_text("mine\n")
    done = cli("generation", "new", str(taken))
    assert done.exit_code == 2 and len(done.stderr.strip().splitlines()) == 1
    assert f"{taken}: exists and is not an empty directory" in done.stderr
    assert sorted(p.name for p in taken.iterdir()) == ["keep.txt"]

    frozen = tmp_path / "run" / "frozen"
    frozen.parent.mkdir()
    copy_generation(BASELINE, frozen, created_by="frozen by a test")
    record_evolution_tasks(frozen, [TASK])
    (tmp_path / "empty").mkdir()
    done = cli("generation", "new", str(tmp_path / "empty"), "--from", str(frozen))
    assert done.exit_code == 0, done.output
    assert (tmp_path / "empty" / "evolution_tasks.json").read_bytes() == (frozen / "evolution_tasks.json").read_bytes()
    assert cli("generation", "check", str(tmp_path / "empty")).exit_code == 0  # the record is allowed beside it
    run_dir = cli("generation", "new", str(tmp_path / "other"), "--from", str(tmp_path / "run"))
    assert run_dir.exit_code == 2 and f"its frozen library is {frozen}" in run_dir.stderr
    assert not (tmp_path / "other").exists()


def test_evolve_takes_generation_but_not_with_resume(tmp_path):
    done = cli("evolve", "--resume", str(tmp_path / "run"), "--generation", str(tmp_path / "my-gen"))
    assert done.exit_code == 2 and "drop --generation" in done.stderr
    unsealed = tmp_path / "my-gen"
    cli("generation", "new", str(unsealed))
    limit = unsealed / "modules/observation/limit_output.py"
    limit.write_text(limit.read_text() + "# edited, not sealed\n")
    done = cli("evolve", "--tasks", str(TASK), "--generation", str(unsealed), "--out", str(tmp_path / "evo"))
    assert done.exit_code == 2 and "limit_output.py: content hash differs" in done.stderr
    assert "modularrsi generation check" in done.stderr


def test_signatures_cover_every_contract_callable_and_every_shipped_function_meets_them():
    assert set(SIGNATURES) == {name for callables in CONTRACTS.values() for name in callables}
    shipped = sorted(BASELINE.glob("modules/*/*.py")) + sorted(Path(catalogue.__file__).parent.glob("[!_]*.py"))
    assert len(shipped) > 20
    for path in shipped:
        tree = ast.parse(path.read_text())
        values = declarations(path, tree).values
        assert signature_problems(path, tree, values["MODULE"], values["ROLE"]) == [], path
