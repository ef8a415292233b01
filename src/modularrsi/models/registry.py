"""Models by name: ``sim`` (offline simulator), ``scripted:FILE.json``, or any LiteLLM model name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from modularrsi.models.base import ChatModel


def make_model(name: str, *, privileged: dict[str, Any] | None = None, **settings: Any) -> ChatModel:
    """Build the model called ``name``.

    ``privileged`` carries what only a simulator may know (the task's reference steps, the attempt's
    seed); the harness passes it through without reading it, and real backends ignore it."""
    if not name:
        raise ValueError("no model given: use --model sim, scripted:FILE.json, or a LiteLLM model name")
    if name == "sim" or name.startswith("sim:"):
        from modularrsi.models.sim import SimModel

        profile = name.partition(":")[2] or "default"
        return SimModel.for_attempt(profile=profile, **(privileged or {}))
    if name.startswith("scripted:"):
        from modularrsi.models.scripted import ScriptedModel

        return ScriptedModel.from_file(Path(name.partition(":")[2]))
    from modularrsi.models.litellm_backend import LiteLLMModel

    return LiteLLMModel(name, **settings)
