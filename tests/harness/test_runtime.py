"""The function runtime keeps today's behaviour: typed endings, state seen by both sides, module
trace; and turns what a function gets wrong at run time into a harness error, never a crash."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time

import pytest
from runtime_helpers import declared, kernel_with, left_behind, reply, results, run, sandbox_processes, shape_attack

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


# ------------------------------------------------------------------ no worker outlives its call
#: Puts the worker's uid in the notes and makes a request, so the host has it before the function spins.
REPORT_UID = "import os\nctx.state.notes['uid'] = os.getuid()\nctx.model.context_limit()\n"
SPIN = "while True:\n    pass\n"
START_SPINNING_PROCESSES = """
import os, subprocess, sys
tried = []
try:
    if os.fork() == 0:
        while True:
            pass
    tried.append('forked')
except OSError as exc:
    tried.append(type(exc).__name__)
try:
    subprocess.Popen([sys.executable, '-c', 'while True: pass'])
    tried.append('started')
except OSError as exc:
    tried.append(type(exc).__name__)
ctx.state.notes['tried'] = tried
"""


def worker_of(kernel) -> tuple[int, int]:
    """The episode's worker: its pid in the sandbox and its uid."""
    return kernel.session.pid, kernel.state.notes["uid"]


def test_a_function_over_its_time_limit_leaves_no_process(tmp_path, task):
    kernel, ending = episode(tmp_path, task, shape_attack(REPORT_UID + SPIN), timeout_s=1.0)
    assert isinstance(ending, FunctionError) and "time limit" in str(ending)
    assert left_behind(*worker_of(kernel)) == []


def test_a_function_cannot_start_processes_and_leaves_none(tmp_path, task):
    kernel, ending = episode(tmp_path, task, shape_attack(START_SPINNING_PROCESSES + REPORT_UID + SPIN), timeout_s=1.0)
    assert kernel.state.notes["tried"] == ["BlockingIOError", "BlockingIOError"]  # RLIMIT_NPROC is 0
    assert isinstance(ending, FunctionError) and left_behind(*worker_of(kernel)) == []


SPAWNING_FILE = """import os
def spin():
    while True:
        pass
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        spin()
    spin()
PARAMETERS = {'uid': os.getuid()}
"""


def test_were_processes_allowed_they_would_end_with_their_worker():
    from modularrsi.harness.runtime import Zygote, worker_limits

    values, worker = declared(SPAWNING_FILE, {**worker_limits(), "RLIMIT_NPROC": 8, "RLIMIT_CPU": 600})
    uid = values["PARAMETERS"]["uid"]
    try:
        ends = time.monotonic() + 30
        while sum(p[1] == uid for p in sandbox_processes()) < 3 and time.monotonic() < ends:
            time.sleep(0.05)
        assert sum(p[1] == uid for p in sandbox_processes()) == 3  # the worker, its child, the child's child
        Zygote.kill(worker)
        assert left_behind(worker.pid, uid) == []
    finally:
        worker.sock.close()


def test_a_worker_killed_as_soon_as_it_is_forked_is_gone():
    """The kill may come before the worker has become its own uid (a spare discarded, a cancelled start)."""
    from modularrsi.harness.runtime import Zygote, worker_limits

    for _ in range(5):
        worker = Zygote.fresh(worker_limits())
        try:
            Zygote.kill(worker)
            assert left_behind(worker.pid, -1) == []
        finally:
            worker.sock.close()


def test_a_worker_has_a_cpu_time_limit(tmp_path, task):
    body = ("import resource\nused = resource.getrusage(resource.RUSAGE_SELF)\n"
            "return resource.getrlimit(resource.RLIMIT_CPU), used.ru_utime + used.ru_stime")
    kernel, ending = episode(tmp_path, task, shape_attack(body), timeout_s=1.0)
    (soft, hard), used = eval(results(kernel)[0])  # noqa: S307 - our own repr of plain values
    assert ending.reason == "completed" and soft > 0 and hard > 0, f"no CPU limit: {(soft, hard)}"
    from modularrsi.harness.runtime import CALL_CPU_MARGIN_S, worker_limits

    assert hard == worker_limits(call_s=1.0)["RLIMIT_CPU"]
    assert CALL_CPU_MARGIN_S < soft - used <= 2 + CALL_CPU_MARGIN_S < hard  # 1 s + the margin from the last message


def test_an_episode_that_ends_normally_leaves_no_worker(tmp_path, task):
    kernel, ending = episode(tmp_path, task, shape_attack("import os\nreturn os.getuid()"))
    assert ending.reason == "completed"
    assert left_behind(kernel.session.pid, int(results(kernel)[0])) == []


def test_a_cancelled_episode_leaves_no_worker(tmp_path, task):
    kernel = kernel_with(tmp_path, task, shape_attack(REPORT_UID + SPIN), timeout_s=120.0)

    async def cancel_once_spinning() -> None:
        running = asyncio.create_task(kernel.run())
        ends = time.monotonic() + 60
        while "uid" not in kernel.state.notes and not running.done() and time.monotonic() < ends:
            await asyncio.sleep(0.05)
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        kernel.close(Ending("time_limit", kernel.state.turn, "cancelled (agent timeout)"))  # as the agent does

    asyncio.run(cancel_once_spinning())
    assert left_behind(*worker_of(kernel)) == []
