"""The function runtime keeps today's behaviour: typed endings, state seen by both sides, module
trace; and turns what a function gets wrong at run time into a harness error, never a crash."""

from __future__ import annotations

import asyncio
import json

import pytest
from runtime_helpers import kernel_with, reply, results, run, shape_attack

from modularrsi.harness.protocols import Ending
from modularrsi.harness.safefiles import open_append, write_atomic
from modularrsi.harness.session import FunctionError


@pytest.fixture
def task(task_factory):
    return task_factory()


def episode(tmp_path, task, functions=None, **kwargs):
    kernel = kernel_with(tmp_path, task, functions or {}, **kwargs)
    return kernel, asyncio.run(run(kernel))


def test_gen0_completes_and_traces_every_call(tmp_path, task):
    kernel, ending = episode(tmp_path, task)
    assert ending == Ending("completed", 3)
    assert kernel.terminal.keys == ["ls\n"]
    events = [json.loads(line) for line in (tmp_path / "logs" / "module_trace.jsonl").read_text().splitlines()]
    calls = [(e["module"], e["callable"]) for e in events if e["event"] == "call"]
    assert {("tool_use", "parse"), ("completion", "on_claim"), ("context", "before_query")} <= set(calls)
    assert [e["event"] for e in events][:1] == ["runtime"]


def test_limits_end_the_episode_as_before(tmp_path, task):
    _, ending = episode(tmp_path, task, replies=[reply(["ls\n"])] * 5, max_turns=2)
    assert ending == Ending("turn_limit", 2, "turn limit of 2 reached")


def test_model_errors_end_the_episode_as_before(tmp_path, task):
    _, ending = episode(tmp_path, task, replies=[reply(["ls\n"])])
    assert ending.reason == "model_error" and ending.detail.startswith("UnexpectedCall")


def test_memo_and_notes_live_for_the_episode(tmp_path, task):
    body = "ctx.memo['n'] = ctx.memo.get('n', 0) + 1\nctx.state.notes['n'] = ctx.memo['n']\nreturn len(ctx.history)"
    kernel, ending = episode(tmp_path, task, shape_attack(body))
    shapes = sum(1 for line in (tmp_path / "logs" / "module_trace.jsonl").read_text().splitlines()
                 if '"callable": "shape", ' in line and "escape" in line)
    # shaped: the initial screen and the one observation (completion claims see the output as read)
    assert ending.reason == "completed" and kernel.state.notes["n"] == shapes == 2
    assert [int(r) for r in results(kernel)] == [0, 2]  # the history grows as the kernel keeps it


BAD = {
    "raises": ("def shape(output, ctx):\n    raise ValueError('nope')", "ValueError: nope"),
    "wrong type": ("def shape(output, ctx):\n    return {'not': 'a string'}", "shape returned a dict"),
    "not plain data": ("def shape(output, ctx):\n    return {1, 2}", "cannot cross the function boundary"),
    "garbage on the wire": ("def shape(output, ctx):\n    ctx.model._c.sock.sendall(b'\\x00\\x00\\x00\\x03abc')\n"
                            "    return ctx.model.context_limit()", "malformed"),
    "forged value": ("def shape(output, ctx):\n    import json, struct\n    channel = ctx.model._c\n"
                     "    data = json.dumps({'id': 99, 'op': 'loop.observe', 'a': [{'__t': 'Reply', 'raw': 1}, 'x']})\n"
                     "    channel.sock.sendall(struct.pack('>I', len(data)) + data.encode())\n"
                     "    raise RuntimeError(str(channel.receive().get('err')))", "Reply.raw must be str"),
    "notes not plain data": ("def shape(output, ctx):\n    ctx.state.notes['x'] = object()\n    return output",
                             "ctx.state.notes"),
    "exits": ("def shape(output, ctx):\n    import os\n    os._exit(3)", "worker exited"),
    "fails on import": ("raise SystemExit('at import')", "SystemExit: at import"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_function_is_a_harness_error(tmp_path, task, name):
    source, message = BAD[name]
    source = 'MODULE = "observation"\nROLE = "additive"\n' + source
    kernel, ending = episode(tmp_path, task, {"observation/bad": ("additive", source)})
    assert isinstance(ending, FunctionError) and message in str(ending), ending
    assert '"event": "harness_error"' in (tmp_path / "logs" / "module_trace.jsonl").read_text()


def test_planted_symlinks_never_redirect_a_write(tmp_path, task):
    canaries = {name: tmp_path / f"canary-{name}" for name in ("trajectory.json", "trajectory.json.tmp",
                                                                "module_trace.jsonl", "episode.json")}
    for path in canaries.values():
        path.write_text("untouched\n")
    kernel = kernel_with(tmp_path, task, {}, plant=canaries)
    ending = asyncio.run(run(kernel))
    kernel.close(ending)
    write_atomic(tmp_path / "logs" / "episode.json", "{}")
    for name, path in canaries.items():
        assert path.read_text() == "untouched\n", name
    logs = tmp_path / "logs"
    assert not any(p.is_symlink() for p in logs.iterdir() if p.name != "trajectory.json.tmp")
    assert json.loads((logs / "trajectory.json").read_text())["steps"]
    assert '"event": "end"' in (logs / "module_trace.jsonl").read_text()


def test_a_symlink_planted_after_opening_is_replaced_not_followed(tmp_path):
    canary = tmp_path / "canary"
    canary.write_text("untouched\n")
    (tmp_path / "trace.jsonl").symlink_to(canary)
    with open_append(tmp_path / "trace.jsonl") as handle:
        handle.write("event\n")
    write_atomic(tmp_path / "out.json", "1")
    (tmp_path / "out.json").unlink()
    (tmp_path / "out.json").symlink_to(canary)
    write_atomic(tmp_path / "out.json", "2")
    assert canary.read_text() == "untouched\n"
    assert (tmp_path / "trace.jsonl").read_text() == "event\n" and (tmp_path / "out.json").read_text() == "2"
