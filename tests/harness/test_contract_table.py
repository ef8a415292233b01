"""One declaration per contract: the module contracts live in ``CONTRACT_TABLE`` and what a function
may ask of the orchestrator in the ``LoopAPI``/``Terminal``/``ModelAPI`` protocols; the docs table,
the kernel's result checks, the loader's signatures, the findings' module names, the worker's proxies
and the orchestrator's request handlers are all read from them, and no private asyncio API is used
to nest calls."""

from __future__ import annotations

import ast
import asyncio
import inspect
from pathlib import Path
from typing import Protocol

import pytest
from runtime_helpers import kernel_with, run

from modularrsi.evolve import findings
from modularrsi.harness import generation_tools, kernel, protocols, session, wire, worker
from modularrsi.harness.protocols import (
    CONTRACT_TABLE,
    MODULE_TITLES,
    MODULES,
    Ending,
    LoopAPI,
    Message,
    ModelAPI,
    Reply,
    Terminal,
    Verdict,
)
from modularrsi.harness.steps import steps

SRC = Path(__file__).resolve().parents[2] / "src" / "modularrsi"
PROXIES = {"loop": (LoopAPI, worker.LoopProxy), "terminal": (Terminal, worker.TerminalProxy),
           "model": (ModelAPI, worker.ModelProxy)}


def test_the_documented_table_is_the_declared_one():
    assert protocols.__doc__.rstrip().endswith(protocols.contract_table()), (
        "protocols.py's docstring table differs from CONTRACT_TABLE: paste contract_table()'s text into it")


def test_modules_roles_and_signatures_are_read_from_the_table():
    assert set(MODULE_TITLES) == set(MODULES) and findings.Module is protocols.Module
    assert protocols.CORE_SLOTS == ("agent_loop", "tool_use", "context", "completion")  # observation: additive only
    assert {c.name: c.params for c in CONTRACT_TABLE} == generation_tools.SIGNATURES
    assert len({c.name for c in CONTRACT_TABLE}) == len(CONTRACT_TABLE), "callable names must be unique"
    for c in CONTRACT_TABLE:
        assert protocols.CONTRACTS[(c.module, c.role)][c.name] is c.is_async
        assert c.params[-1] == ("loop" if c.name == "run" else "ctx")


@pytest.mark.parametrize(("name", "value", "allowed"), [
    ("before_query", None, True), ("before_query", [], True), ("before_query", [Message("user", "x")], True),
    ("before_query", ["x"], False), ("on_overflow", [], False), ("on_overflow", [Message("user", "x")], True),
    ("parse", Reply("x"), True), ("parse", "x", False), ("on_claim", Verdict(True), True),
    ("on_claim", True, False), ("check", None, True), ("check", True, False), ("shape", 3, False),
    ("run", Ending("completed", 1), True), ("run", None, False),
])
def test_results_are_checked_against_the_table(name, value, allowed):
    if allowed:
        assert kernel.check_result(name, value) is value
    else:
        with pytest.raises(session.FunctionError, match=f"{name} returned"):
            kernel.check_result(name, value)


def test_every_step_is_served_and_proxied_with_its_declared_signature():
    handlers = session.host_handlers(_FakeKernel())
    declared = {f"{prefix}.{step.name}" for prefix, (proto, _) in PROXIES.items() for step in steps(proto)}
    assert set(handlers) == declared and len(declared) == 17
    for proto, proxy in PROXIES.values():
        for step in steps(proto):
            method = getattr(proxy, step.name)
            assert inspect.signature(method) == step.signature, step.name
            assert inspect.iscoroutinefunction(method) is step.is_async, step.name
    assert set(wire.NOTIFICATIONS) <= declared


def test_the_kernel_serves_each_loop_step_under_its_name_and_arguments():
    for step in steps(LoopAPI):
        served = inspect.signature(getattr(kernel.Kernel, step.name))
        assert list(served.parameters) == list(step.signature.parameters), step.name


def test_a_step_declared_once_reaches_both_ends():
    """A newcomer adds a step to a protocol; the proxy and the checked handler follow from it."""

    class Extra(Protocol):
        async def ping(self, text: str, times: int = 1) -> list[str]: ...

    sent = []

    class Channel:
        def request(self, op, *args):
            sent.append((op, args))
            return ["pong"]

    class ExtraProxy(worker.proxy(Extra, "extra")):
        __slots__ = ("_c",)

    proxy = ExtraProxy()
    proxy._c = Channel()
    assert worker.finish(proxy.ping("hi", times=2)) == ["pong"] and sent == [("extra.ping", ("hi", 2))]
    [step] = steps(Extra)
    handler = session._checked(lambda text, times: [text] * times, step)
    assert handler("a") == ["a"]
    with pytest.raises(wire.Malformed, match="times: expected int, got bool"):
        handler("a", True)
    with pytest.raises(wire.Malformed, match="ping"):
        handler("a", 1, 2)


def test_no_private_asyncio_api_and_no_event_loop_in_the_worker():
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text())
        private = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                   and n.attr in ("_get_running_loop", "_set_running_loop", "_run_once")]
        assert not private, f"{path}: {private}"
    imported = {a.name for n in ast.walk(ast.parse((SRC / "harness" / "worker.py").read_text()))
                if isinstance(n, ast.Import) for a in n.names}
    assert "asyncio" not in imported


def test_a_coroutine_that_awaits_something_else_ends_the_episode_with_its_reason(tmp_path, task_factory):
    source = '''
MODULE = "context"
ROLE = "core"

class Later:
    def __await__(self):
        yield "suspended"


async def before_query(history, ctx):
    await Later()


async def on_overflow(history, ctx):
    return history[-1:]
'''
    kernel_ = kernel_with(tmp_path, task_factory(), {"context/suspends": ("core", source)})
    ended = asyncio.run(run(kernel_))
    assert isinstance(ended, session.FunctionError)
    assert "awaited something other than the methods of ctx and loop" in str(ended)


class _Anything:
    def __getattr__(self, name):
        return lambda *args: None


class _FakeKernel(_Anything):
    def __init__(self):
        self.terminal, self.model = _Anything(), _Anything()
