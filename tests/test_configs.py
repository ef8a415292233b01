"""The shipped configs: each loads with the settings class of every command its header names, a real
model's key is named by an environment variable (never written in the file), and the README uses each."""

from __future__ import annotations

import re

import litellm
import pytest
import yaml
from testutil import REPO

from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.evaluate import EvalConfig
from modularrsi.rollouts.config import RunConfig

CONFIGS = REPO / "configs"
COMMAND = {EvolveConfig: "evolve", RunConfig: "run", EvalConfig: "eval"}
#: Every file in configs/ and the settings classes of the commands that read it.
USERS: dict[str, tuple[type, ...]] = {
    "demo.yaml": (EvolveConfig,),
    "api-model.yaml": (EvolveConfig,),
    "local-server.yaml": (RunConfig, EvolveConfig),  # one attempt checks the server, then the evolution
    "containers.yaml": (EvolveConfig,),
    "harbor-dataset.yaml": (EvalConfig, RunConfig),
}
#: Shapes of provider keys and tokens; none may appear in a shipped config.
KEY_SHAPES = re.compile(r"sk-[A-Za-z0-9_-]{12,}|sk-ant-|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}"
                        r"|gh[pousr]_[A-Za-z0-9]{20,}|xox[abprs]-|hf_[A-Za-z0-9]{20,}"
                        r"|(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{32,}")  # a long random token
SECRET_FIELDS = re.compile(r"(api_?key|token|secret|password)$", re.IGNORECASE)


def header(path) -> str:
    """The comment block a config starts with."""
    lines = path.read_text().splitlines()
    return "\n".join(line for line in lines[:next(i for i, x in enumerate(lines) if not x.startswith("#"))])


def test_every_file_in_configs_is_covered():
    assert sorted(p.name for p in CONFIGS.iterdir()) == sorted(USERS), "a new config needs its entry in USERS"


@pytest.mark.parametrize("name", sorted(USERS))
def test_config_loads_with_the_command_that_uses_it_and_says_so(name):
    path = CONFIGS / name
    text = header(path)
    assert text, f"{name}: start with a comment block saying what the config is for"
    for settings in USERS[name]:
        settings.load(path)
        assert f"modularrsi {COMMAND[settings]} --config configs/{name}" in text, \
            f"{name}: its header should show the `{COMMAND[settings]}` command that uses it"


def roles_of(config) -> list:
    return [getattr(config.roles, r) for r in type(config.roles).model_fields] if config.roles else []


@pytest.mark.parametrize("name", sorted(USERS))
def test_real_models_are_routable_and_read_their_key_from_a_variable(name):
    config = USERS[name][0].load(CONFIGS / name)
    for settings in [s for s in roles_of(config) if s is not None]:
        litellm.get_llm_provider(settings.model)  # LiteLLM can route the name (no endpoint is asked)
        assert settings.api_key_env and re.fullmatch(r"[A-Z][A-Z0-9_]*", settings.api_key_env), \
            f"{name}: {settings.model} names no environment variable for its key"


def walk(node, where=""):
    if isinstance(node, dict):
        for key, value in node.items():
            yield f"{where}.{key}", key, value
            yield from walk(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, f"{where}[{i}]")


@pytest.mark.parametrize("name", sorted(USERS))
def test_no_config_holds_an_api_key(name):
    text = (CONFIGS / name).read_text()
    assert not KEY_SHAPES.search(text), f"{name}: holds something shaped like an API key"
    fields = [where for where, key, _ in walk(yaml.safe_load(text)) if SECRET_FIELDS.search(str(key))]
    assert fields == [], f"{name}: {fields} — name the key's environment variable in api_key_env instead"


def test_the_readme_uses_every_config():
    readme = (REPO / "README.md").read_text()
    assert [name for name in USERS if f"configs/{name}" not in readme] == []
