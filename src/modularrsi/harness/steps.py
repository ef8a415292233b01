"""The requests a function can make of the orchestrator, read from the protocols that declare them
(:class:`~modularrsi.harness.protocols.LoopAPI`, ``Terminal``, ``ModelAPI``): the worker builds its
proxies from them and the orchestrator its checked handlers, so a step is declared once.

Kept apart from :mod:`modularrsi.harness.protocols` because functions import that module and this
one reads code by introspection, which functions may not.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, get_type_hints


@dataclass(frozen=True)
class Step:
    """One method of a protocol as seen across the boundary: its name, whether the caller awaits it,
    its parameters' types, its result type and its signature (defaults included)."""

    name: str
    is_async: bool
    params: tuple[tuple[str, Any], ...]
    returns: Any
    signature: inspect.Signature


def steps(protocol: type) -> tuple[Step, ...]:
    """The methods ``protocol`` declares, in declaration order (its attributes are not steps)."""
    found = []
    for name, member in vars(protocol).items():
        if name.startswith("_") or not inspect.isfunction(member):
            continue
        hints = get_type_hints(member)
        signature = inspect.signature(member)
        params = tuple((p, hints[p]) for p in list(signature.parameters)[1:])
        found.append(Step(name, inspect.iscoroutinefunction(member), params, hints.get("return"), signature))
    return tuple(found)
