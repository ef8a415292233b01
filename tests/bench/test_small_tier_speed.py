"""bench/small_tier/speed.py: a level's run is started with the bench's settings and resumed with its own."""

from __future__ import annotations

import importlib.util
import sys

from testutil import REPO

sys.path.insert(0, str(REPO / "bench" / "small_tier"))
spec = importlib.util.spec_from_file_location("speed", REPO / "bench" / "small_tier" / "speed.py")
speed = importlib.util.module_from_spec(spec)
spec.loader.exec_module(speed)


def test_a_started_level_resumes_with_its_own_settings(tmp_path, monkeypatch):
    commands = []
    monkeypatch.setattr(speed.subprocess, "run", lambda command, **_: commands.append(command))
    run_dir = tmp_path / "ngram_mod" / "c4"
    speed.run_level(4, ["csv-sum-paid-invoices"], 1, run_dir)
    fresh = commands[-1]
    assert fresh[fresh.index("--out") + 1] == str(run_dir) and fresh[fresh.index("-n") + 1] == "4"
    assert "--config" in fresh and "--resume" not in fresh
    run_dir.mkdir(parents=True)
    (run_dir / "config.yaml").write_text("k: 1\n")  # the run started (an interrupted level, or a finished one)
    speed.run_level(4, ["csv-sum-paid-invoices"], 1, run_dir)
    # `modularrsi run --resume` refuses --config, --tasks, -k, -n and --env: the run's config.yaml holds them
    assert commands[-1][1:] == ["run", "--resume", str(run_dir)]
