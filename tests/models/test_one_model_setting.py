"""One model-settings type: however the agent's model is named — a run config's ``model``, its
``roles.agent``, an evolve config's ``model`` or ``roles.agent``, Harbor's ``-m`` alone — the same
settings reach the backend, and the evolution's own roles get the same settings as the agent's.
(Before: 600 s per call named as ``model``, 120 s named as ``roles.agent``.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from harbor.models.trial.config import TaskConfig

from modularrsi.evolve.config import EvolveConfig
from modularrsi.evolve.context import RunContext
from modularrsi.harness.agent import ModularAgent
from modularrsi.harness.model_limits import FALLBACK_CONTEXT_LIMIT, RETRY_BACKOFF_S
from modularrsi.models.litellm_backend import DEFAULT_CONTEXT_LIMIT, LiteLLMModel
from modularrsi.models.settings import ModelSettings
from modularrsi.rollouts.config import RunConfig
from modularrsi.rollouts.runner import Job, Runner
from modularrsi.util.errors import UserError

NAME = "openai/one-setting-model"
FULL = {"model": NAME, "api_base": "http://127.0.0.1:9/v1", "api_key_env": "ONE_SETTING_KEY", "temperature": 0.7,
        "timeout_s": 45.0, "context_limit": 8192, "max_output_tokens": 512, "max_retries": 1,
        "structured_output": False, "extra": {"top_p": 0.9}}


def backend(model) -> LiteLLMModel:
    while not isinstance(model, LiteLLMModel):
        model = model.inner  # the response cache and the budget meter wrap it
    return model


def trial_backend(tmp_path: Path, config: RunConfig) -> LiteLLMModel:
    """The backend the agent of one of ``config``'s trials builds, through the runner and Harbor's options."""
    agent = Runner(config, tmp_path / "run", [])._agent(Job(task=TaskConfig(path=tmp_path), name="t", index=0,
                                                           seed=0))
    return backend(ModularAgent(tmp_path / "logs", agent.model_name, **agent.kwargs)._model())


def evolve_context(tmp_path: Path, **fields) -> RunContext:
    return RunContext(EvolveConfig(tasks=[tmp_path], **fields), tmp_path / "evolve")


def test_every_way_of_naming_the_agents_model_reaches_the_backend_with_the_same_settings(tmp_path):
    ways = {
        "run: model": trial_backend(tmp_path, RunConfig(model=NAME)),
        "run: roles.agent": trial_backend(tmp_path, RunConfig(roles={"agent": {"model": NAME}})),
        "evolve: model": trial_backend(tmp_path, evolve_context(tmp_path, model=NAME).run_template()),
        "evolve: roles.agent": trial_backend(tmp_path, evolve_context(
            tmp_path, roles={"agent": {"model": NAME}}).run_template()),
        "harbor: -m": backend(ModularAgent(tmp_path / "logs", NAME)._model()),
    }
    expected = ModelSettings(model=NAME)
    assert expected.timeout_s == 600.0 and expected.max_retries == 2  # LiteLLM's timeout, Terminus-2 keeps it
    for way, model in ways.items():
        assert model.settings == expected, way
        assert (model.backoff_s, model.context_limit()) == (RETRY_BACKOFF_S, FALLBACK_CONTEXT_LIMIT), way
    for role in ("analyst", "editor", "reviewer"):  # the evolution's own roles: the same settings
        for fields in ({"model": NAME}, {"roles": {"agent": {"model": NAME}}}):
            model = backend(evolve_context(tmp_path, **fields).role_model(role))
            assert model.settings == expected, (role, fields)
            assert model.context_limit() == DEFAULT_CONTEXT_LIMIT  # only the fallback window is the role's


def test_a_full_setting_reaches_the_trial_and_every_unset_role_whole(tmp_path):
    declared = ModelSettings.model_validate(FULL)
    run = trial_backend(tmp_path, RunConfig(roles={"agent": FULL}))
    context = evolve_context(tmp_path, roles={"agent": FULL})
    evolved = trial_backend(tmp_path, context.run_template())
    assert run.settings == evolved.settings == declared
    assert run.context_limit() == 8192
    for role in ("analyst", "editor", "reviewer"):
        assert backend(context.role_model(role)).settings == declared


def test_a_task_aware_composer_gets_its_own_settings_whole(tmp_path):
    composer = {"model": "openai/composer-model", "max_output_tokens": 32, "structured_output": False}
    config = RunConfig(roles={"agent": {"model": NAME}, "composer": composer})
    agent = Runner(config, tmp_path / "run", [])._agent(Job(task=TaskConfig(path=tmp_path), name="t", index=0,
                                                           seed=0))
    options = ModularAgent(tmp_path / "logs", agent.model_name, **agent.kwargs).options
    assert options.composer == "task-aware"
    assert options.composer_model == ModelSettings.model_validate(composer)


def test_a_run_file_written_before_the_defaults_reads_as_the_same_settings(tmp_path):
    """config.yaml of a run made when retries had no default of their own (``max_retries: null``: the agent's
    2) and no ``extra``: it loads, and equals the same run asked for now, so the run can be resumed."""
    old = tmp_path / "config.yaml"
    old.write_text(f"roles: {{agent: {{model: {NAME}, timeout_s: 600.0, max_retries: null, "
                   "structured_output: true}}\n")
    assert RunConfig.load(old) == RunConfig(roles={"agent": {"model": NAME}})


def test_a_bare_name_is_a_model_with_default_settings():
    assert ModelSettings.model_validate(NAME) == ModelSettings(model=NAME)
    options = ModularAgent(Path("/nonexistent"), NAME, composer_model="openai/other").options
    assert options.composer_model == ModelSettings(model="openai/other")


@pytest.mark.parametrize("key", ["api_base", "timeout_s", "temperature", "model"])
def test_a_model_setting_among_the_agents_options_is_refused_naming_where_it_goes(tmp_path, key):
    config = tmp_path / "config.yaml"
    config.write_text(f"model: {NAME}\nagent_kwargs: {{{key}: '1'}}\n")
    with pytest.raises(UserError, match=f"agent_kwargs.{key} is a model setting: give it in roles.agent"):
        RunConfig.load(config)


def test_two_different_agents_are_refused_one_agent_named_twice_is_not(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text(f"model: openai/a\nroles: {{agent: {{model: {NAME}}}}}\n")
    with pytest.raises(UserError, match=f"model 'openai/a' and roles.agent.model '{NAME}' name different agents"):
        RunConfig.load(config)
    with pytest.raises(UserError, match="name different agents"):
        EvolveConfig.load(config, {"tasks": [str(tmp_path)]})
    assert RunConfig(model=NAME, roles={"agent": {"model": NAME}}).model == NAME
    assert RunConfig(roles={"agent": {"model": NAME}}).model == NAME  # results name the model called
