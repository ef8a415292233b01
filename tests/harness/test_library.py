"""Generations: validation before anything runs, immutability, content ids, the composer."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from modularrsi.harness import BASELINE, composer
from modularrsi.harness.library import GenerationError, load_generation, read_sources, write_generation
from modularrsi.harness.probe import Probe, probe
from modularrsi.harness.session import FunctionError
from modularrsi.offline.scripted import ScriptedModel


def copy_baseline(tmp_path: Path) -> Path:
    target = tmp_path / "gen"
    shutil.copytree(BASELINE, target)
    return target


def rewrite(gen: Path, rel: str, source: str) -> Path:
    """Edit a function and re-seal the manifest hash (as a writer of a new generation would)."""
    import hashlib

    path = gen / "modules" / rel
    path.write_text(source)
    manifest = json.loads((gen / "manifest.json").read_text())
    for entry in manifest["functions"]:
        if f"{entry['module']}/{entry['name']}.py" == rel:
            entry["sha256"] = hashlib.sha256(source.encode()).hexdigest()
    (gen / "manifest.json").write_text(json.dumps(manifest))
    return path


def test_baseline_loads_with_one_core_per_slot():
    gen = load_generation(BASELINE)
    assert gen.id.startswith("g") and len(gen.functions) == 5
    assert composer.static(gen)["observation"] == ["limit_output"]


OBS = BASELINE / "modules" / "observation" / "limit_output.py"


def test_gen0_is_declared_once_and_reading_it_loads_no_harbor():
    import subprocess
    import sys

    from modularrsi.evolve import layout
    from modularrsi.harness import agent, library

    assert BASELINE is library.BASELINE is agent.BASELINE and not hasattr(layout, "BASELINE")
    code = ("import sys; from modularrsi.harness import BASELINE; "
            "assert BASELINE.is_dir() and 'harbor' not in sys.modules, sorted(sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.parametrize("edit, needle", [
    (lambda s: s.replace("def shape(output, ctx):", "def shape(output, ctx)"), "syntax error"),
    (lambda s: s.replace("def shape(output, ctx):", "def reshape(output, ctx):"), "missing contract method 'shape'"),
    (lambda s: "import subprocess\n" + s, "forbidden import 'subprocess'"),
    (lambda s: "from os import path\n" + s, "forbidden import 'os'"),
    (lambda s: s.replace("    limit = ", "    open('/tests/x')\n    limit = "), "forbidden name 'open'"),
    (lambda s: s.replace('MODULE = "observation"', 'MODULE = "context"'), "MODULE is 'context'"),
    (lambda s: s.replace('ROLE = "additive"', 'ROLE = "core"'), "ROLE 'core' is not valid"),
    (lambda s: s.replace("def shape(output, ctx):", "async def shape(output, ctx):"), "must be 'def'"),
    (lambda s: s.replace('PARAMETERS = {"max_bytes": 10000}', 'PARAMETERS = dict(max_bytes=10000)'),
     "PARAMETERS must be a literal value"),
])
def test_malformed_functions_are_refused_naming_the_file(tmp_path, edit, needle):
    gen = copy_baseline(tmp_path)
    path = rewrite(gen, "observation/limit_output.py", edit(OBS.read_text()))
    with pytest.raises(GenerationError) as err:
        load_generation(gen)
    assert needle in str(err.value) and str(path) in str(err.value)


def test_loading_runs_no_function_code_and_import_failures_surface_on_first_use(tmp_path):
    gen = copy_baseline(tmp_path)
    rewrite(gen, "observation/limit_output.py", OBS.read_text() + "\nraise RuntimeError('boom at import')\n")
    fn = load_generation(gen).functions["observation/limit_output"]  # validated from the syntax tree alone
    with pytest.raises(FunctionError, match="RuntimeError: boom at import"):
        probe(fn, "shape", "output")


def test_edited_file_without_new_manifest_is_refused(tmp_path):
    gen = copy_baseline(tmp_path)
    (gen / "modules" / "observation" / "limit_output.py").write_text(OBS.read_text() + "\n# tweak\n")
    with pytest.raises(GenerationError, match="content hash differs"):
        load_generation(gen)


def test_loading_again_reuses_the_check_but_never_module_state(tmp_path):
    gen = copy_baseline(tmp_path)
    counting = OBS.read_text() + "\nSEEN = []\n\n\ndef shape(output, ctx):\n    SEEN.append(1)\n" \
                                 "    return str(len(SEEN))\n"
    path = rewrite(gen, "observation/limit_output.py", counting)
    first = load_generation(gen).functions["observation/limit_output"]

    async def twice(fn) -> list[str]:
        async with Probe(fn) as p:
            return [await p.call("shape", "a"), await p.call("shape", "b")]

    assert asyncio.run(twice(first)) == ["1", "2"]  # module state lasts an episode...
    second = load_generation(gen).functions["observation/limit_output"]
    assert asyncio.run(twice(second)) == ["1", "2"]  # ...and never reaches the next
    assert second.sha256 == first.sha256

    # A changed file is checked again (the cache is keyed by content), even with a re-sealed manifest.
    rewrite(gen, "observation/limit_output.py", path.read_text() + "import subprocess\n")
    with pytest.raises(GenerationError, match="forbidden import 'subprocess'"):
        load_generation(gen)


def test_active_set_needs_exactly_one_core(tmp_path):
    gen = copy_baseline(tmp_path)
    manifest = json.loads((gen / "manifest.json").read_text())
    manifest["active"]["completion"] = []
    (gen / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(GenerationError, match="completion needs exactly one active core function, has 0"):
        load_generation(gen)


def test_write_generation_is_new_and_content_addressed(tmp_path):
    base = load_generation(BASELINE)
    sources = read_sources(base)
    first = write_generation(tmp_path / "gen_1", sources, base.default_active(), [base.id], "test")
    assert first.id == base.id  # same content, same id
    sources["observation/limit_output"] = sources["observation/limit_output"].replace("10000", "4000")
    second = write_generation(tmp_path / "gen_2", sources, base.default_active(), [base.id], "test")
    assert second.id != base.id
    with pytest.raises(GenerationError, match="exists already"):
        write_generation(tmp_path / "gen_2", sources, base.default_active(), [], "test")


def two_observers(tmp_path: Path):
    base = load_generation(BASELINE)
    sources = read_sources(base)
    extra = sources["observation/limit_output"].replace("10000", "2000").replace(
        "Keeps terminal output", "A tighter variant. Keeps terminal output")
    sources["observation/limit_2k"] = extra
    active = base.default_active()
    return write_generation(tmp_path / "gen_c", sources, active, [base.id], "test")


def test_task_aware_composer_uses_a_valid_choice(tmp_path):
    gen = two_observers(tmp_path)
    model = ScriptedModel(['Sure: {"observation": ["limit_2k", "limit_output"]}'])
    active, note = asyncio.run(composer.task_aware(gen, "do it", model))
    assert note == "task-aware" and active["observation"] == ["limit_2k", "limit_output"]
    assert active["tool_use"] == ["terminus_json"]
    assert "limit_2k" in model.calls[0][0].content


@pytest.mark.parametrize("answer, why", [
    ("no json here", "rejected"),
    ('{"observation": ["nonexistent"]}', "does not exist"),
    ('{"completion": []}', "exactly one active core"),
])
def test_task_aware_composer_falls_back_to_static(tmp_path, answer, why):
    gen = two_observers(tmp_path)
    active, note = asyncio.run(composer.task_aware(gen, "do it", ScriptedModel([answer])))
    assert active == gen.default_active() and note.startswith("static") and why in note


def test_composer_call_failure_falls_back(tmp_path):
    gen = two_observers(tmp_path)
    active, note = asyncio.run(composer.task_aware(gen, "do it", ScriptedModel([])))
    assert active == gen.default_active() and "composer call failed" in note


def test_a_new_generation_that_does_not_load_leaves_nothing(tmp_path):
    sources = read_sources(load_generation(BASELINE))
    sources["observation/limit_output"] += "\nimport subprocess\n"
    with pytest.raises(GenerationError, match="forbidden import 'subprocess'"):
        write_generation(tmp_path / "gen_1", sources, load_generation(BASELINE).default_active(), [], "test")
    assert list(tmp_path.iterdir()) == []
