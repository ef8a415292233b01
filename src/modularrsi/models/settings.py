"""How to reach a model, declared once: :class:`ModelCall` (connection and call settings) and
:class:`ModelSettings` (a model name with its call settings).

Every place that names a model embeds these: the run and evolve configs (``roles``), the agent's
options in a trial (``ModularAgentOptions`` inherits :class:`ModelCall`, so ``--ak timeout_s=…`` is the
same field), and the backend, which is handed a whole :class:`ModelSettings`. An API key is never a
setting: ``api_key_env`` names the environment variable that holds it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from modularrsi.util.jsontypes import Options

#: LiteLLM's default read timeout, which Terminus-2 keeps (seconds).
DEFAULT_TIMEOUT_S = 600.0
#: Retries of a failed call (a deliberate difference from Terminus-2: docs/terminus-2-parity.md).
DEFAULT_RETRIES = 2


class ModelCall(BaseModel):
    """How to call a model, without its name."""

    model_config = ConfigDict(extra="forbid")

    api_base: str | None = Field(default=None, description="OpenAI-compatible base URL.")
    api_key_env: str | None = Field(default=None, description="Environment variable holding the API key.")
    temperature: float | None = Field(default=None, description="Sampling temperature (None: the endpoint's).")
    timeout_s: float = Field(default=DEFAULT_TIMEOUT_S, gt=0, description="Per-call read timeout in seconds "
                             "(600: LiteLLM's default, which Terminus-2 uses).")
    context_limit: int | None = Field(default=None, gt=0, description="The model's context window (tokens); "
                                      "None: what LiteLLM knows of the model, else the role's fallback "
                                      "(the agent: 1,000,000 as Terminus-2; other roles: 32,768).")
    max_output_tokens: int | None = Field(default=None, gt=0, description="Cap on one reply's tokens (the "
                                          "request's max_tokens; a reply cut off there is recorded as such); "
                                          "None: the endpoint's own limit.")
    max_retries: int = Field(default=DEFAULT_RETRIES, ge=0, description="Retries of a failed call (rate limits, "
                             "5xx, timeouts; never client errors), with a growing wait between them.")
    structured_output: bool = Field(default=True, description="Send a JSON schema as response_format for the "
                                    "structured roles (analyst, reviewer, composer); False for endpoints that "
                                    "refuse it (repair-and-retry still applies).")
    extra: Options = Field(default_factory=dict, description="Further keyword arguments of every "
                                  "completion request (e.g. top_p, seed, extra_body).")

    @field_validator("max_retries", mode="before")
    @classmethod
    def _unset_is_the_default(cls, value: Any) -> Any:
        """``max_retries: null`` (as run files written before it had a default say it) is the default."""
        return DEFAULT_RETRIES if value is None else value


class _Named(BaseModel):
    model: str = Field(description="sim, scripted:FILE.json, or a LiteLLM model name.")


class ModelSettings(ModelCall, _Named):  # (this base order puts `model` first in files and help)
    """A model and how to call it. A bare string is a model name with the default call settings."""

    @model_validator(mode="before")
    @classmethod
    def _a_name_alone(cls, data: Any) -> Any:
        return {"model": data} if isinstance(data, str) else data


def is_sim(name: str) -> bool:
    """The offline simulator (``sim``, ``sim:PROFILE``); never a served model whose name starts with "sim"."""
    return name == "sim" or name.startswith("sim:")


def is_scripted(name: str) -> bool:
    """A scripted model (``scripted:FILE.json``)."""
    return name.startswith("scripted:")


def is_litellm(name: str) -> bool:
    """A model served through LiteLLM: any other non-empty name."""
    return bool(name) and not (is_sim(name) or is_scripted(name))


#: The names of the call settings (options of the agent, never extra agent options).
CALL_FIELDS = frozenset(ModelCall.model_fields)
