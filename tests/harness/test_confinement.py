"""Escape candidates run through the function runtime with the static checks bypassed on purpose.

Each candidate is function code the static gate would refuse, executed anyway (see
``runtime_helpers.unchecked``), and each test asserts that the *host effect* did not happen — a
canary unchanged, a marker file absent, a secret nowhere the host kept, a server never connected
to, this process alive — and that the code did run (it reported back through ``ctx.state.notes``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from runtime_helpers import MODEL_SECRET, context_attack, host_visible, kernel_with, results, run, shape_attack

from modularrsi.harness import zygote
from modularrsi.harness.protocols import Ending
from modularrsi.harness.session import FunctionError

SOLUTION_TOKEN = "SOLUTION-TOKEN-41d2"
#: The function workers' host uids.
WORKER_UIDS = range(zygote.WORKER_ID_BASE, zygote.WORKER_ID_BASE + zygote.WORKER_ID_SPAN)
ENV_SECRET = "sk-orchestrator-secret-5e1b"


@pytest.fixture
def task(task_factory):
    return task_factory(solve_sh=f"#!/bin/bash\n# {SOLUTION_TOKEN}\necho done > /app/done.txt\n")


@pytest.fixture
def canary(tmp_path):
    path = tmp_path / "canary.txt"
    path.write_text("untouched\n")
    return path


def episode(tmp_path, task, functions, **kwargs):
    kernel = kernel_with(tmp_path, task, functions, **kwargs)
    kernel.ending = asyncio.run(run(kernel))
    return kernel, kernel.ending


def assert_ran(kernel):
    assert results(kernel), f"the escape candidate never ran ({kernel.ending!r})"


# ------------------------------------------------------------------ host commands
COMMANDS = {
    "os.system": "import os\nreturn os.system('touch {mark}')",
    "subprocess": "import subprocess\nreturn subprocess.run(['touch', '{mark}']).returncode",
    "posix.system": "import posix\nreturn posix.system('touch {mark}')",
    "ctypes.system": "import ctypes\nreturn ctypes.CDLL(None).system(b'touch {mark}')",
    "_thread": "import _thread, os, time\n_thread.start_new_thread(os.system, ('touch {mark}',))\ntime.sleep(0.5)",
    "importlib": "import importlib\nreturn importlib.import_module('subprocess').call(['touch', '{mark}'])",
    "os.fork+exec": "import os\npid = os.fork()\nif pid == 0:\n    os.execv('/usr/bin/touch', ['touch', '{mark}'])\n"
                    "return os.waitpid(pid, 0)",
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_host_command_has_no_effect(tmp_path, task, name):
    mark = tmp_path / f"mark-{name}"
    kernel, _ = episode(tmp_path, task, shape_attack(COMMANDS[name], mark=mark))
    assert_ran(kernel)
    assert not mark.exists()


def test_asyncio_subprocess_has_no_effect(tmp_path, task):
    mark = tmp_path / "mark-asyncio"
    body = "import asyncio\nproc = await asyncio.create_subprocess_shell('touch {mark}')\nreturn await proc.wait()"
    kernel, _ = episode(tmp_path, task, context_attack(body, mark=mark))
    assert_ran(kernel)
    assert not mark.exists()


# ------------------------------------------------------------------ host files
WRITES = {
    "open": "open('{canary}', 'w').write('pwned')",
    "codecs.open": "import codecs\ncodecs.open('{canary}', 'w').write('pwned')",
    "_io.FileIO": "import _io\n_io.FileIO('{canary}', 'w').write(b'pwned')",
    "pathlib": "import pathlib\npathlib.Path('{canary}').write_text('pwned')",
    "os.open": "import os\nfd = os.open('{canary}', os.O_WRONLY | os.O_TRUNC)\nos.write(fd, b'pwned')",
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_host_file_write_has_no_effect(tmp_path, task, canary, name):
    kernel, _ = episode(tmp_path, task, shape_attack(WRITES[name], canary=canary))
    assert_ran(kernel)
    assert canary.read_text() == "untouched\n"


READS = {
    "open": "return open('{task}/solution/solve.sh').read()",
    "_io.FileIO": "import _io\nreturn _io.FileIO('{task}/solution/solve.sh').read()",
    "type(path).glob": "import pathlib\nroot = type(pathlib.Path('/'))\n"
                       "found = [p.read_text() for p in root('{task}').glob('*/*.sh')]\n"
                       "return found + sorted(map(str, root('/root').glob('*')))",
    "proc root": "return open('/proc/{pid}/root{task}/solution/solve.sh').read()",
}


@pytest.mark.parametrize("name", sorted(READS))
def test_task_solution_is_unreadable(tmp_path, task, name):
    kernel, _ = episode(tmp_path, task, shape_attack(READS[name], task=task, pid=os.getpid()))
    assert_ran(kernel)
    assert SOLUTION_TOKEN not in host_visible(kernel, tmp_path)


def test_root_and_work_are_not_visible(tmp_path, task):
    body = ("import os\n"
            "return [sorted(os.listdir(p)) if os.path.isdir(p) else None for p in ('/root', '/work', '/home', '/etc')]")
    kernel, _ = episode(tmp_path, task, shape_attack(body))
    assert results(kernel)[0] == "[['.pyenv'], None, None, None]"


# ------------------------------------------------------------------ secrets, network, identity
def test_orchestrator_environment_is_unreadable(tmp_path, task, monkeypatch):
    monkeypatch.setenv("MODULARRSI_TEST_SECRET", ENV_SECRET)
    body = ("import os\nfound = [dict(os.environ)]\nfor pid in ('1', '2', 'self', '{pid}'):\n"
            "    try:\n        found.append(open('/proc/' + pid + '/environ').read())\n"
            "    except OSError as exc:\n        found.append(repr(exc))\nreturn found")
    kernel, _ = episode(tmp_path, task, shape_attack(body, pid=os.getpid()))
    assert_ran(kernel)
    assert ENV_SECRET not in host_visible(kernel, tmp_path)


def test_no_network_to_a_local_server(tmp_path, task):
    server = socket.create_server(("127.0.0.1", 0))
    accepted = []
    threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True).start()
    body = "import socket\nreturn socket.create_connection(('127.0.0.1', {port}), timeout=2).recv(1)"
    kernel, _ = episode(tmp_path, task, shape_attack(body, port=server.getsockname()[1]))
    server.close()
    assert_ran(kernel)
    assert accepted == []


def test_each_worker_runs_as_its_own_uid_without_capabilities(tmp_path, task):
    body = ("import os\nstatus = open('/proc/self/status').read()\n"
            "return os.getuid(), os.getgid(), os.getgroups(), 'CapEff:\\t0000000000000000' in status")
    first, _ = episode(tmp_path / "a", task, shape_attack(body))
    second, _ = episode(tmp_path / "b", task, shape_attack(body))
    uid, gid, groups, no_caps = eval(results(first)[0])  # noqa: S307 - our own repr of plain values
    assert uid == gid >= 2_000_000 and groups == [] and no_caps
    assert eval(results(second)[0])[0] not in (uid, 0)  # noqa: S307 - another episode, another uid


def test_a_worker_cannot_signal_the_zygote_or_other_workers(tmp_path, task):
    from modularrsi.harness.runtime import Zygote

    body = ("import os, signal\nout = set()\nfor pid in (int(p) for p in os.listdir('/proc') if p.isdigit()):\n"
            "    if pid != os.getpid():\n        try:\n            os.kill(pid, signal.SIGKILL)\n"
            "            out.add('sent')\n        except OSError as exc:\n            out.add(type(exc).__name__)\n"
            "return sorted(out)")
    episode(tmp_path / "warm", task, {})
    zygote = Zygote.current()
    kernel, _ = episode(tmp_path / "attack", task, shape_attack(body))
    assert results(kernel)[0] == "['PermissionError']"  # the zygote and the spare worker were there to try
    assert Zygote.current() is zygote and zygote._proc.poll() is None


# ------------------------------------------------------------------ host objects
OBJECTS = {
    "ctx.model._model": "return ctx.model._model._replies",
    "getattr(ctx.model)": "return getattr(ctx.model, '_model')._replies",
    "ctx.terminal.environment": "env = ctx.terminal.environment\nreturn env.environment_dir.parent / 'solution'",
    "gc.get_objects": "import gc\nreturn [repr(o)[:200] for o in gc.get_objects() if type(o).__name__ in "
                      "('Kernel', 'KernelModel', 'ScriptedModel', 'HostTerminal', 'HostEnvironment')]",
    "proxy internals": "return [vars(type(ctx.model)), ctx.model._c.sock.getpeername(), dir(ctx.terminal)]",
}


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_host_objects_are_unreachable(tmp_path, task, name):
    kernel, _ = episode(tmp_path, task, shape_attack(OBJECTS[name]))
    assert_ran(kernel)
    seen = host_visible(kernel, tmp_path)
    assert MODEL_SECRET not in seen and str(task) not in seen and "object at 0x" not in seen.replace("Proxy", "")
    assert kernel.terminal.environment.calls == []


def test_the_loop_is_not_the_kernel(tmp_path, task):
    run_source = '''
import gc
from modularrsi.harness.protocols import Ending
MODULE = "agent_loop"
ROLE = "core"

async def run(loop):
    found = [type(loop).__name__, sorted(vars(loop))]
    for name in ("recorder", "terminal", "model", "active", "_trace_file"):
        found.append(getattr(loop, name, "absent"))
    found.append([type(o).__name__ for o in gc.get_objects() if type(o).__name__ in ("Kernel", "TrajectoryRecorder")])
    loop.state.notes["results"] = [str(found)]
    return Ending("completed", 0)
'''
    kernel, ending = episode(tmp_path, task, {"agent_loop/escape": ("core", run_source)})
    assert ending == Ending("completed", 0)
    assert "Kernel" not in results(kernel)[0] and "Recorder" not in results(kernel)[0]
    assert results(kernel)[0].count("absent") == 5 and kernel.recorder.steps == []


def test_sys_modules_tampering_stays_in_the_worker(tmp_path, task):
    body = ("import sys, json\nimport modularrsi.harness.protocols as p\np.Verdict = None\n"
            "sys.modules['modularrsi.harness.kernel'] = None\nsys.modules['modularrsi.harness.session'] = None\n"
            "return sorted(m for m in sys.modules if m.startswith('modularrsi'))")
    kernel, ending = episode(tmp_path, task, shape_attack(body))
    from modularrsi.harness import kernel as kernel_module
    from modularrsi.harness import protocols

    assert_ran(kernel)
    assert sys.modules["modularrsi.harness.kernel"] is kernel_module and protocols.Verdict is not None
    assert ending.reason == "completed"


# ------------------------------------------------------------------ signals and resources
def test_cannot_signal_the_orchestrator(tmp_path, task):
    body = ("import os, signal\nout = []\nfor target in ({pid}, -{pgid}, 1, -1):\n    try:\n"
            "        os.kill(target, signal.SIGKILL)\n        out.append('sent')\n"
            "    except OSError as exc:\n        out.append(type(exc).__name__)\nreturn out")
    kernel, _ = episode(tmp_path, task, shape_attack(body, pid=os.getpid(), pgid=os.getpgid(0)))
    assert os.getpid() and results(kernel)  # still here to assert anything at all
    kernel, ending = episode(tmp_path / "after", task, {})  # a killed zygote is replaced
    assert ending.reason == "completed"


def worker_processes() -> int:
    """Processes of this test process's tree that run as a function worker's uid. Other runs on the machine
    have workers of their own (and the same uids: each zygote counts from the base), so they are left out; a
    fork bomb's orphans stay in the tree, taken up by their sandbox's pid-namespace init."""
    parent, workers = {}, []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = Path(f"/proc/{entry}/stat").read_text()
            parent[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
            if os.stat(f"/proc/{entry}").st_uid in WORKER_UIDS:
                workers.append(int(entry))

    def ours(pid: int) -> bool:
        for _ in parent:  # bounded: a pid reused between two reads could make a loop
            if pid == os.getpid():
                return True
            pid = parent.get(pid, 0)
        return False

    return sum(map(ours, workers))


def test_importing_the_zygote_changes_nothing():
    """The zygote's script sets ``sys.path[0]`` only when it runs (in the sandbox), not when imported."""
    code = ("import sys; before = list(sys.path); import modularrsi.harness.zygote as z; "
            "assert sys.path == before, (before, sys.path); assert 'modularrsi.harness.worker' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_fork_bomb_is_stopped(tmp_path, task):
    before = worker_processes()
    body = "import os\nn = 0\nwhile n < 10000:\n    os.fork()\n    n += 1\nreturn n"
    kernel, _ = episode(tmp_path, task, shape_attack(body))
    assert results(kernel)[0].startswith("blocked: BlockingIOError")
    assert worker_processes() <= before + 5


def test_memory_limit(tmp_path, task):
    body = "chunks = []\nwhile True:\n    chunks.append(bytearray(16 << 20))"
    kernel, _ = episode(tmp_path, task, shape_attack(body), memory_mb=256)
    assert results(kernel)[0].startswith("blocked: MemoryError")


@pytest.mark.parametrize("body", ["while True:\n    pass", "import time\ntime.sleep(3600)",
                                  "import select\nselect.select([], [], [])"])
def test_a_function_that_never_returns_ends_the_episode(tmp_path, task, body):
    kernel, ending = episode(tmp_path, task, shape_attack(body), timeout_s=1.0)
    assert isinstance(ending, FunctionError) and "time limit" in str(ending)
    assert '"event": "harness_error"' in (tmp_path / "logs" / "module_trace.jsonl").read_text()


# ------------------------------------------------------------------ loading runs the file confined, too
def test_loading_runs_a_file_confined(tmp_path, canary):
    from modularrsi.harness.runtime import declare

    mark = tmp_path / "mark-load"
    source = (f"import os\nos.system('touch {mark}')\ntry:\n    open('{canary}', 'w').write('pwned')\n"
              "except OSError:\n    pass\nMODULE = 'observation'\nROLE = 'additive'\nPARAMETERS = {'n': 1}\n"
              "def shape(output, ctx):\n    return output\n")
    report = declare(source)
    assert report["values"] == {"MODULE": "observation", "ROLE": "additive", "PARAMETERS": {"n": 1}}
    assert report["callables"] == {"shape": "sync"}
    assert not mark.exists() and canary.read_text() == "untouched\n"


def test_loading_a_file_that_never_finishes_is_refused(tmp_path):
    from modularrsi.harness.runtime import declare

    assert declare("while True:\n    pass\n", timeout_s=1.0)["error"].startswith("TimeoutError")
