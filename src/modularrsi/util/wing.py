"""The one way the production path reaches the offline world (:mod:`modularrsi.offline`): by name.

The simulated model and world, the scripted model, the sim analyst and editor, the catalogue, the fake
OpenAI-compatible server and the synthetic report data stand in for what cannot exist offline (a real
LLM, real findings and edits). They ship in the package so users can use them too, but nothing outside
``offline/`` imports them: the model registry and the evolution's role registry ask for them here, by
name, when a configuration names ``sim`` or ``scripted:FILE`` (``tests/architecture/test_imports.py``
keeps it so).
"""

from __future__ import annotations

import importlib
from typing import Any


def offline(name: str) -> Any:
    """``module:attribute`` of :mod:`modularrsi.offline` (e.g. ``"sim:SimModel"``), imported when asked for."""
    module, _, attribute = name.partition(":")
    return getattr(importlib.import_module(f"modularrsi.offline.{module}"), attribute)
