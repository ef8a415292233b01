"""Models by name: ``sim`` (offline simulator), ``scripted:FILE.json``, or any LiteLLM model name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from modularrsi.models.base import ChatModel
from modularrsi.models.settings import ModelSettings, is_litellm, is_scripted, is_sim
from modularrsi.util.errors import UserError
from modularrsi.util.jsontypes import Options
from modularrsi.util.wing import offline


def make_model(settings: ModelSettings | str, *, privileged: dict[str, Any] | None = None,
               cache_path: Path | None = None, budget_path: Path | None = None, max_tokens: int | None = None,
               max_cost_usd: float | None = None, cache_scope: dict[str, Any] | None = None,
               replay_path: Path | None = None, **backend: Any) -> ChatModel:
    """Build the model ``settings`` name (a bare name: default call settings), behind the run's response
    cache and budget ledger when given.

    ``privileged`` carries what only a simulator may know (the task's reference steps, the attempt's
    seed); the harness passes it through without reading it, and real backends ignore it. Simulated
    and scripted models are never cached (their answers depend on their own state). ``cache_scope``: the
    attempt asking (task, attempt index, seed), part of every cache key. ``replay_path`` (with
    ``cache_path``): the paired side's cache, read-only, answering the attempt's common prefix with it
    (:mod:`modularrsi.models.cache`); a missing file is an empty cache. ``backend``: construction
    arguments of :class:`~modularrsi.models.litellm_backend.LiteLLMModel` (``backoff_s``,
    ``context_fallback``)."""
    settings = ModelSettings.model_validate(settings)
    name = settings.model
    model = _backend(settings, privileged, backend)
    if cache_path is not None and is_litellm(name):
        from modularrsi.models.cache import CachedModel, ResponseCache

        replay = ResponseCache(Path(replay_path), read_only=True) if replay_path is not None else None
        model = CachedModel(model, ResponseCache(Path(cache_path)), cache_settings(settings), cache_scope, replay)
    if budget_path is not None or max_tokens is not None or max_cost_usd is not None:
        from modularrsi.models.budget import BudgetLedger, MeteredModel

        ledger = (BudgetLedger.shared(Path(budget_path), max_tokens, max_cost_usd) if budget_path
                  else BudgetLedger(None, max_tokens, max_cost_usd))
        model = MeteredModel(model, ledger)
    return model


def cache_settings(settings: ModelSettings) -> dict[str, Any]:
    """The settings that change a reply, part of every cache key (those set only)."""
    return {k: v for k, v in {"temperature": settings.temperature, "max_output_tokens": settings.max_output_tokens,
                              "extra": settings.extra or None}.items() if v is not None}


def _backend(settings: ModelSettings, privileged: dict[str, Any] | None, backend: Options) -> ChatModel:
    name = settings.model
    if not name:
        raise UserError("no model given: use --model sim, scripted:FILE.json, or a LiteLLM model name")
    if is_sim(name):
        profile = name.partition(":")[2] or "default"
        return offline("sim:SimModel").for_attempt(profile=profile, **(privileged or {}))
    if is_scripted(name):
        return offline("scripted:ScriptedModel").from_file(Path(name.partition(":")[2]))
    from modularrsi.models.litellm_backend import LiteLLMModel

    return LiteLLMModel(settings, **backend)


class ModelCheckError(UserError):
    """A model that cannot answer: an unknown name, a missing script, an endpoint that does not answer."""


def check_model(name: str, api_base: str | None = None, timeout_s: float = 5.0,
                api_key_env: str | None = None) -> None:
    """Refuse, in one line, a model no trial could use — before any trial runs. ``sim``: a world it knows;
    ``scripted:FILE``: a readable script; a LiteLLM name: one LiteLLM can route, whose credentials are
    in the environment (``api_key_env``, else the provider's own variables, as LiteLLM's
    ``validate_environment`` names them), and with ``api_base`` an endpoint that answers
    ``GET {api_base}/models`` (any HTTP status counts as an answer)."""
    if not name:
        raise ModelCheckError("no model given: use sim, scripted:FILE.json, or a LiteLLM model name")
    if is_sim(name):
        try:
            offline("sim:world_for")(name.partition(":")[2] or "default")
        except ValueError as exc:
            raise ModelCheckError(f"model '{name}': {exc}") from None
        return
    if is_scripted(name):
        try:
            offline("scripted:ScriptedModel").from_file(Path(name.partition(":")[2]))
        except (OSError, ValueError) as exc:
            raise ModelCheckError(f"model '{name}': {exc}") from None
        return
    provider, default_base = _check_litellm(name)
    _check_credentials(name, api_base, api_key_env)
    endpoint = api_base or default_base
    if endpoint is None and provider in SELF_HOSTED:
        raise ModelCheckError(f"model '{name}': a {provider} model is served by you; give its api_base "
                              "(e.g. http://127.0.0.1:8000/v1)")
    if endpoint:
        _check_endpoint(name, endpoint, timeout_s)


#: LiteLLM providers that have no public endpoint: a model of theirs needs an ``api_base``.
SELF_HOSTED = frozenset({"hosted_vllm", "vllm", "lm_studio", "openai_like", "xinference", "oobabooga", "litellm_proxy"})


def _check_litellm(name: str) -> tuple[str, str | None]:
    """``name``'s provider and the endpoint LiteLLM would call by itself (set by a provider variable such as
    ``HOSTED_VLLM_API_BASE``, or a local default such as ollama's); None for a provider's public API."""
    import contextlib
    import io

    import litellm

    try:
        with contextlib.redirect_stdout(io.StringIO()):  # LiteLLM prints a provider list on failure
            _, provider, _, base = litellm.get_llm_provider(name)
    except Exception:  # noqa: BLE001 - LiteLLM raises its own error types for an unroutable name
        raise ModelCheckError(f"model '{name}': LiteLLM cannot resolve it; write provider/model (openai/…, "
                              "deepseek/…, hosted_vllm/…), sim, or scripted:FILE.json") from None
    return provider, base if base and _loopback(base) else None


def _loopback(url: str) -> bool:
    """Whether ``url`` names this machine (a preflight never probes any other host by itself)."""
    import ipaddress
    from urllib.parse import urlparse

    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_credentials(name: str, api_base: str | None, api_key_env: str | None) -> None:
    """The key a call would send is there: ``api_key_env`` when named, else whatever LiteLLM asks of the
    provider (``OPENAI_API_KEY`` for ``openai/…``, even at a local ``api_base``; nothing for ``hosted_vllm/…``)."""
    import os

    import litellm

    if api_key_env is not None:
        if not os.environ.get(api_key_env):
            raise ModelCheckError(f"model '{name}': api_key_env names {api_key_env}, which is not set; export "
                                  f"{api_key_env}=<key> (or drop api_key_env to use the provider's own variable)")
        return
    missing = litellm.validate_environment(name, api_base=api_base).get("missing_keys") or []
    if missing:
        local = " (a local server that needs no key takes any value, or use hosted_vllm/…)" if api_base else ""
        value = "<key>" if "KEY" in missing[0] or "TOKEN" in missing[0] else "<value>"
        raise ModelCheckError(f"model '{name}': {' and '.join(missing)} not set; export "
                              f"{missing[0]}={value}{local}, or name another variable with api_key_env")


def _check_endpoint(name: str, api_base: str, timeout_s: float) -> None:
    import urllib.error
    import urllib.request

    url = api_base.rstrip("/") + "/models"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s):  # noqa: S310 - the user's own endpoint
            pass
    except urllib.error.HTTPError:
        return  # it answered (auth or routing errors are the model layer's to report)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ModelCheckError(f"model '{name}': endpoint {api_base} does not answer ({reason}); start the "
                              "server or fix api_base") from None
