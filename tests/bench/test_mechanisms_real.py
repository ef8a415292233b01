"""bench/mechanisms.py with a real model's config: each variant replays gen_0's replies (common random numbers),
so an inert mechanism asks the model nothing new and one that changes the conversation asks from there on."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

from testutil import REPO

from modularrsi.offline.fake_server import FakeOpenAIServer
from modularrsi.rollouts.runner import trials_busy_seconds

TASK = REPO / "tasks" / "small" / "pool" / "package-release-tag"


def test_variants_replay_gen0_and_call_the_model_only_where_they_differ(tmp_path):
    done = json.dumps({"analysis": "a", "plan": "p", "commands": [], "task_complete": True})
    with FakeOpenAIServer(responder=lambda request: done) as server:
        config = tmp_path / "model.yaml"
        config.write_text(f"max_turns: 4\nroles:\n  agent: {{model: hosted_vllm/tiny, api_base: '{server.base_url}',"
                          " api_key_env: MODULARRSI_BENCH_KEY, temperature: 0.7, max_retries: 0}\n")
        calls = []

        def bench(*only):
            result = subprocess.run(
                [sys.executable, str(REPO / "bench" / "mechanisms.py"), "--config", str(config), "--tasks", str(TASK),
                 "-k", "1", "-n", "1", "--env", "local", "--only", *only, "--out", str(tmp_path / "out"),
                 "--json", str(tmp_path / "truth.json")],
                capture_output=True, text=True, timeout=600, cwd=REPO,
                env={**os.environ, "MODULARRSI_BENCH_KEY": "sk-bench"})
            assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
            calls.append(len(server.requests))
            return result.stdout

        inert = bench("trim_listing")  # gen_0, then a variant whose requests are gen_0's own
        assert "model hosted_vllm/tiny" in inert and "common random numbers" in inert and "simulated" not in inert
        assert "gen_0 (repeat)" not in inert
        assert calls[0] == 2  # gen_0: the claim and its confirmation; the variant replayed both
        challenged = bench("trim_listing", "evidence_check")  # finished variants are read, not run again
        assert calls[1] > calls[0]  # the challenge after the claim is a new conversation: asked from there on
        first_new = server.requests[calls[0]]["messages"]
        assert len(first_new) > 1 and "task_complete" in first_new[1]["content"]  # not from the first turn
        assert "evidence_check" in challenged
        truth = json.loads((tmp_path / "truth.json").read_text())  # the table as data, for summary.py
        assert [row["name"] for row in truth["rows"]] == ["gen_0", "trim_listing", "evidence_check"]  # --only's order
        assert truth["pending"] == []
        assert truth["model"] == "hosted_vllm/tiny" and truth["replayed"] and not truth["simulated"]


def test_gen0_from_an_existing_run_is_copied_in_with_its_seed_and_k(tmp_path):
    """``--gen0-from``: an earlier gen_0 run (an evolution's epoch sample) is the gen_0 side; the variants use its
    seed and K, so an inert one replays it whole and the model is asked nothing new."""
    done = json.dumps({"analysis": "a", "plan": "p", "commands": [], "task_complete": True})
    with FakeOpenAIServer(responder=lambda request: done) as server:
        config = tmp_path / "model.yaml"
        config.write_text(f"max_turns: 4\nroles:\n  agent: {{model: hosted_vllm/tiny, api_base: '{server.base_url}',"
                          " api_key_env: MODULARRSI_BENCH_KEY, temperature: 0.7, max_retries: 0}\n")

        def bench(out, *extra):
            result = subprocess.run(
                [sys.executable, str(REPO / "bench" / "mechanisms.py"), "--config", str(config), "--tasks", str(TASK),
                 "-n", "1", "--env", "local", "--only", "trim_listing", "--out", str(out), *extra],
                capture_output=True, text=True, timeout=600, cwd=REPO,
                env={**os.environ, "MODULARRSI_BENCH_KEY": "sk-bench"})
            assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
            return result.stdout

        bench(tmp_path / "first", "-k", "2", "--seed", "4")
        asked = len(server.requests)
        sample = tmp_path / "first" / "run_gen_0"
        again = bench(tmp_path / "second", "-k", "3", "--seed", "9", "--gen0-from", str(sample))
        assert len(server.requests) == asked  # gen_0 copied, the inert variant replayed it
        assert "1 tasks x k=2, run seed 4" in again
        missing = subprocess.run([sys.executable, str(REPO / "bench" / "mechanisms.py"), "--gen0-from",
                                  str(tmp_path / "nowhere"), "--out", str(tmp_path / "third")],
                                 capture_output=True, text=True, timeout=300, cwd=REPO)
        assert missing.returncode != 0 and "no finished run there" in missing.stderr


def waited_for(server, requests: int, bench: subprocess.Popen) -> bool:
    """Whether the server got this many requests while the bench ran (up to 10 minutes)."""
    deadline = time.monotonic() + 600
    while len(server.requests) < requests and bench.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    return len(server.requests) == requests


def test_a_bench_stopped_part_way_keeps_what_it_measured_and_goes_on(tmp_path):
    """``--json``/``--text`` are written after every variant: stopped while the second variant waits on the model,
    the first is on record with the second pending; the same command then finishes without redoing the first."""
    done = json.dumps({"analysis": "a", "plan": "p", "commands": [], "task_complete": True})
    release = threading.Event()

    def responder(request):
        if len(server.requests) > 2:  # gen_0 asked twice; the challenge of evidence_check waits here
            release.wait(600)
        return done

    truth, text = tmp_path / "truth.json", tmp_path / "truth.txt"
    with FakeOpenAIServer(responder=responder) as server:
        config = tmp_path / "model.yaml"
        config.write_text(f"max_turns: 4\nroles:\n  agent: {{model: hosted_vllm/tiny, api_base: '{server.base_url}',"
                          " api_key_env: MODULARRSI_BENCH_KEY, temperature: 0.7, max_retries: 0}\n")
        cmd = [sys.executable, str(REPO / "bench" / "mechanisms.py"), "--config", str(config), "--tasks", str(TASK),
               "-k", "1", "-n", "1", "--env", "local", "--only", "trim_listing", "evidence_check",
               "--out", str(tmp_path / "out"), "--json", str(truth), "--text", str(text)]
        env = {**os.environ, "MODULARRSI_BENCH_KEY": "sk-bench"}
        bench = subprocess.Popen(cmd, cwd=REPO, env=env, start_new_session=True,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert waited_for(server, 3, bench)  # the second variant is waiting on the model
        finally:
            os.killpg(bench.pid, signal.SIGKILL)
            bench.wait()
        partial = json.loads(truth.read_text())
        assert [row["name"] for row in partial["rows"]] == ["gen_0", "trim_listing"]
        assert partial["pending"] == ["evidence_check"]
        assert "not run yet" in text.read_text() and "evidence_check" in text.read_text()
        truth.unlink()  # in the other order, the variant finished before is on record before the first one runs
        reordered = [*cmd[:cmd.index("--only") + 1], "evidence_check", "trim_listing", *cmd[cmd.index("--out"):]]
        again = subprocess.Popen(reordered, cwd=REPO, env=env, start_new_session=True,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert waited_for(server, 4, again)  # evidence_check waits on the model again
        finally:
            os.killpg(again.pid, signal.SIGKILL)
            again.wait()
            release.set()
        partial = json.loads(truth.read_text())
        assert [row["name"] for row in partial["rows"]] == ["gen_0", "trim_listing"]
        assert partial["pending"] == ["evidence_check"]
        finished = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=REPO, env=env)
        assert finished.returncode == 0, finished.stdout[-2000:] + finished.stderr[-3000:]
        whole = json.loads(truth.read_text())
        assert [row["name"] for row in whole["rows"]] == ["gen_0", "trim_listing", "evidence_check"]
        assert whole["pending"] == [] and "not run yet" not in text.read_text()


def test_an_unknown_mechanism_tag_is_refused_with_the_valid_ones(tmp_path):
    result = subprocess.run([sys.executable, str(REPO / "bench" / "mechanisms.py"), "--only", "loop_gaurd",
                             "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert result.returncode != 0
    assert "--only loop_gaurd: not a catalogue tag" in result.stderr and "loop_guard" in result.stderr


def test_an_evolved_library_is_benched_first_and_its_own_functions_named_by_hash(tmp_path):
    """``--generation NAME=DIR``: a library the catalogue has no row for (an arm's frozen one) is a variant of its
    own, run before the catalogue's, and its JSON row names the functions that differ from gen_0 by content hash
    (what summary.py matches a promoted function of the model's own against)."""
    from modularrsi.harness import BASELINE
    from modularrsi.harness.library import load_generation
    from modularrsi.offline.sim_editor import SimEditor

    library = tmp_path / "frozen"
    SimEditor(seed=0, bad_rate=0.0).propose("completion", "evidence_check", BASELINE, library, force="good")
    own = {key: fn.sha256 for key, fn in load_generation(library).functions.items()
           if fn.sha256 not in {f.sha256 for f in load_generation(BASELINE).functions.values()}}
    assert own  # the library differs from gen_0
    result = subprocess.run(  # the sim model: what is checked here is which variants run and what their rows say
        [sys.executable, str(REPO / "bench" / "mechanisms.py"), "--tasks", str(TASK), "-k", "1", "-n", "1",
         "--env", "local", "--no-repeat", "--only", "trim_listing", "--generation", f"my-arm={library}",
         "--out", str(tmp_path / "out"), "--json", str(tmp_path / "truth.json")],
        capture_output=True, text=True, timeout=600, cwd=REPO)
    assert result.returncode == 0, result.stderr[-3000:]
    rows = json.loads((tmp_path / "truth.json").read_text())["rows"]
    assert [row["name"] for row in rows] == ["gen_0", "my-arm", "trim_listing"]
    assert rows[1]["functions"] == own and "functions" not in rows[2]
    assert "my-arm" in result.stdout
    runs = [trials_busy_seconds(tmp_path / "out" / run) for run in ("run_gen_0", "run_my_arm", "run_trim_listing")]
    assert all(runs)  # each variant's trials, over every session that ran them: a resumed bench reports its whole time
    assert f"{sum(runs):.0f} s with the variants' trials running" in result.stdout


def test_a_generation_that_is_not_one_or_whose_name_is_taken_is_refused_in_one_line(tmp_path):
    def bench(spec):
        return subprocess.run([sys.executable, str(REPO / "bench" / "mechanisms.py"), "--generation", spec,
                               "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=300, cwd=REPO)

    missing = bench(f"mine={tmp_path}")
    assert missing.returncode != 0
    assert f"--generation mine={tmp_path}: {tmp_path} holds no manifest.json" in missing.stderr
    taken = bench(f"loop_guard={tmp_path}")
    assert taken.returncode != 0 and "the name loop_guard is taken" in taken.stderr
    assert "expected NAME=DIR" in bench("frozen").stderr
    same_run = bench(f"loop-guard={tmp_path}")  # its run directory would be loop_guard's
    assert same_run.returncode != 0 and "the name loop-guard is taken" in same_run.stderr
    assert not (tmp_path / "out").exists()  # refused before anything ran
