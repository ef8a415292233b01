"""One predicate for "is this the simulator": ``sim`` and ``sim:PROFILE`` are; a served model whose name
merely starts with "sim" is a real model everywhere — built, cached, labelled and reviewed as one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from testutil import REPO

from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.context import RunContext
from modularrsi.harness.agent import ModularAgent
from modularrsi.models.cache import CachedModel
from modularrsi.models.litellm_backend import LiteLLMModel
from modularrsi.models.registry import make_model
from modularrsi.models.roles import ModelRoles
from modularrsi.models.settings import is_litellm, is_scripted, is_sim
from modularrsi.rollouts.results import build_results

SERVED = "simon/coder-7b"  # a LiteLLM name that starts with "sim"


@pytest.mark.parametrize("name, sim, scripted, litellm", [
    ("sim", True, False, False), ("sim:perfect", True, False, False), ("scripted:/x/a.json", False, True, False),
    (SERVED, False, False, True), ("simple", False, False, True), ("openai/sim", False, False, True),
    ("", False, False, False)])
def test_the_predicates(name, sim, scripted, litellm):
    assert (is_sim(name), is_scripted(name), is_litellm(name)) == (sim, scripted, litellm)


def test_a_served_model_named_sim_something_is_a_real_model_everywhere(tmp_path):
    model = make_model(SERVED, cache_path=tmp_path / "cache.sqlite")
    assert isinstance(model, CachedModel) and isinstance(model.inner, LiteLLMModel)  # cached as a real model
    assert build_results("r", SERVED, "gen_0", [], 1, 0.0).simulated is False  # not labelled simulated
    context = RunContext(EvolveConfig(tasks=[tmp_path], model=SERVED), tmp_path / "evolve")
    assert context.role_model("analyst") is not None  # its own analyst, not the offline one
    assert ModelRoles(agent=SERVED).warnings()  # the same editor and reviewer is warned about
    assert ModularAgent(tmp_path, SERVED)._settle_s() == 0.0 and ModularAgent(tmp_path, "sim")._settle_s() > 0
    assert build_results("r", "sim:perfect", "gen_0", [], 1, 0.0).simulated is True


def test_no_other_place_decides_it():
    """Nothing in src/ or bench/ compares a model name with "sim" or "scripted:" but the predicates."""
    found = []
    for path in [*(REPO / "src").rglob("*.py"), *(REPO / "bench").rglob("*.py")]:
        if path.name == "settings.py" and path.parent.name == "models":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "startswith" and node.args \
                    and _names_a_kind(node.args[0]):
                found.append(f"{Path(path).relative_to(REPO)}:{node.lineno}")
            if isinstance(node, ast.Compare) and any(_names_a_kind(c) for c in node.comparators) \
                    and isinstance(node.ops[0], ast.Eq | ast.NotEq):
                found.append(f"{Path(path).relative_to(REPO)}:{node.lineno}")
    assert found == []


def _names_a_kind(node: ast.AST) -> bool:
    values = node.elts if isinstance(node, ast.Tuple) else [node]
    return any(isinstance(v, ast.Constant) and v.value in ("sim", "sim:", "scripted:") for v in values)
