"""bench/small_tier/carry.py: a run directory travels to another machine with what its --resume reads (a
response cache still in its WAL included) and without the trials' sandboxes; restore never overwrites and
refuses an archive that would write outside its run."""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile

import pytest
from testutil import REPO, load_script

carry = load_script("bench/small_tier/carry.py")


def make_run(runs):
    run = runs / "evolve-catalogue"
    trial = run / "samples" / "trials" / "csv-sum__a0"
    (trial / "sandbox" / "work").mkdir(parents=True)
    (trial / "sandbox" / "disk.img").write_bytes(b"\0" * 4096)
    (trial / "result.json").write_text(json.dumps({"reward": 1.0}))
    (run / "state.json").write_text("{}")
    db = sqlite3.connect(run / "cache.sqlite")  # left open: the rows are in the WAL, not yet in the file
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, content TEXT)")
    db.execute("INSERT INTO responses VALUES ('k1', 'a reply')")
    db.commit()
    return run, db


def test_save_then_restore_elsewhere_keeps_what_resume_reads(tmp_path):
    run, db = make_run(tmp_path / "runs")
    assert (run / "cache.sqlite-wal").stat().st_size > 0
    archive = carry.save(run.name, tmp_path / "runs", tmp_path / "carry")
    db.close()
    with tarfile.open(archive) as tar:
        names = set(tar.getnames())
    assert "evolve-catalogue/samples/trials/csv-sum__a0/result.json" in names
    assert not any("sandbox" in n or n.endswith(("-wal", "-shm")) for n in names)

    fresh = tmp_path / "machine2" / "runs"
    restored = carry.restore(run.name, fresh, tmp_path / "carry")
    assert restored == fresh / "evolve-catalogue"
    assert json.loads((restored / "samples/trials/csv-sum__a0/result.json").read_text()) == {"reward": 1.0}
    rows = sqlite3.connect(restored / "cache.sqlite").execute("SELECT key, content FROM responses").fetchall()
    assert rows == [("k1", "a reply")]  # the WAL's rows came along
    assert not (restored / "samples/trials/csv-sum__a0/sandbox").exists()


def test_restore_leaves_an_existing_run_alone(tmp_path):
    run, db = make_run(tmp_path / "runs")
    carry.save(run.name, tmp_path / "runs", tmp_path / "carry")
    db.close()
    (run / "state.json").write_text('{"mine": true}')
    assert carry.restore(run.name, tmp_path / "runs", tmp_path / "carry") is None
    assert json.loads((run / "state.json").read_text()) == {"mine": True}


@pytest.mark.parametrize("member", ["evolve-x/../../outside.txt", "other-run/state.json", "/tmp/absolute.txt"])
def test_an_archive_writing_outside_its_run_is_refused(tmp_path, member):
    archives = tmp_path / "carry"
    archives.mkdir()
    with tarfile.open(archives / "evolve-x.tar.gz", "w:gz") as tar:
        info = tarfile.TarInfo(member)
        info.size = 2
        tar.addfile(info, io.BytesIO(b"hi"))
    with pytest.raises((SystemExit, tarfile.FilterError)):
        carry.restore("evolve-x", tmp_path / "runs", archives)
    assert not (tmp_path / "outside.txt").exists() and not (tmp_path / "runs" / "evolve-x").exists()
    assert not (tmp_path / "runs" / "other-run").exists()


def test_the_command_line_names_what_is_missing(tmp_path):
    with pytest.raises(SystemExit, match="no such run directory"):
        carry.main(["save", "nothing-here", "--runs", str(tmp_path), "--carry", str(tmp_path / "c")])
    with pytest.raises(SystemExit, match="no such archive"):
        carry.main(["restore", "nothing-here", "--runs", str(tmp_path), "--carry", str(tmp_path / "c")])


def test_a_real_run_saved_removed_and_restored_resumes_without_asking_the_model_again(tmp_path):
    from modularrsi.offline.fake_server import FakeOpenAIServer

    done = json.dumps({"analysis": "a", "plan": "p", "commands": [], "task_complete": True})
    runs, archives = tmp_path / "runs", tmp_path / "carry"
    with FakeOpenAIServer(responder=lambda request: done) as server:
        config = tmp_path / "model.yaml"
        config.write_text(f"max_turns: 4\nroles:\n  agent: {{model: hosted_vllm/tiny, api_base: '{server.base_url}',"
                          " api_key_env: MODULARRSI_BENCH_KEY, temperature: 0.7, max_retries: 0}\n")

        def run(*how):
            result = subprocess.run(
                [str(REPO / ".venv" / "bin" / "modularrsi"), "run", *how], capture_output=True, text=True,
                timeout=600, cwd=REPO,
                env={**os.environ, "MODULARRSI_BENCH_KEY": "sk-bench"})
            assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]

        run("--config", str(config), "--tasks", str(REPO / "tasks" / "small" / "pool" / "package-release-tag"),
            "-k", "2", "-n", "1", "--env", "local", "--out", str(runs / "mechanisms"))
        asked = len(server.requests)
        assert asked == 4  # two attempts: a claim and its confirmation each
        carry.save("mechanisms", runs, archives)
        shutil.rmtree(runs / "mechanisms")  # the next machine
        restored = carry.restore("mechanisms", runs, archives)
        results = sorted(restored.rglob("trials/*__a1/result.json"))
        assert len(results) == 1
        results[0].unlink()  # as if the last sitting stopped during attempt 1
        run("--resume", str(restored))
        assert len(server.requests) == asked  # the restored cache answered the re-run attempt
        assert results[0].is_file()
