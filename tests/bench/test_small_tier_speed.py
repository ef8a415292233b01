"""bench/small_tier/speed.py: a level's run is started with the bench's settings and resumed with its own."""

from __future__ import annotations

import subprocess
import sys

import yaml
from testutil import REPO, load_script

speed = load_script("bench/small_tier/speed.py")


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


def test_the_table_gives_both_rates_as_ratios_to_the_first_row():
    def figures(attempts_per_hour: float) -> dict:
        return {"attempts": 4, "attempts_per_hour": attempts_per_hour, "prefix_cached_share": 0.9, "passed": 1}

    lines = speed.table([("none c1", figures(20.0), 40_000.0), ("ngram_mod c4", figures(50.0), 60_000.0)]).splitlines()
    assert lines[1].split() == ["none", "c1", "4", "20.00", "1.00", "40000", "1.00", "0.900", "1"]
    assert lines[2].split() == ["ngram_mod", "c4", "4", "50.00", "2.50", "60000", "1.50", "0.900", "1"]


def test_report_refuses_a_directory_that_is_no_run(tmp_path):
    done = subprocess.run([sys.executable, str(REPO / "bench" / "small_tier" / "speed.py"), "--report", str(tmp_path)],
                          capture_output=True, text=True, cwd=REPO)
    assert done.returncode != 0 and done.stderr.strip() == f"error: {tmp_path}: not a run directory (no config.yaml)"


def test_a_temperature_given_replaces_only_the_agents_and_a_resumed_level_keeps_its_own(tmp_path, monkeypatch):
    commands = []
    monkeypatch.setattr(speed.subprocess, "run", lambda command, **_: commands.append(command))
    run_dir = tmp_path / "external" / "c1"
    speed.run_level(1, ["csv-sum-paid-invoices"], 3, run_dir, temperature=0.0)
    written = yaml.safe_load((tmp_path / "external" / "c1.yaml").read_text())
    shipped = yaml.safe_load((REPO / "bench/small_tier/agent.yaml").read_text())
    assert commands[-1][commands[-1].index("--config") + 1] == str(tmp_path / "external" / "c1.yaml")
    assert written["roles"]["agent"]["temperature"] == 0.0 and shipped["roles"]["agent"]["temperature"] == 0.7
    shipped["roles"]["agent"]["temperature"] = 0.0
    assert written == shipped  # nothing else changed
    speed.run_level(1, ["csv-sum-paid-invoices"], 3, tmp_path / "none" / "c1")  # no temperature: the bench's file
    assert commands[-1][commands[-1].index("--config") + 1] == str(REPO / "bench/small_tier/agent.yaml")


def test_a_greedy_setting_has_its_own_directory_and_a_bad_temperature_is_one_line():
    assert speed.setting_name("ngram_mod", None, None) == "ngram_mod"
    assert speed.setting_name("ngram_mod", 1, 0.0) == "ngram_mod-t1-T0"  # never the sampled run's directory
    assert speed.setting_name("external", None, 0.7) == "external-T0.7"
    done = subprocess.run([sys.executable, str(REPO / "bench" / "small_tier" / "speed.py"), "--temperature", "-1"],
                          capture_output=True, text=True, cwd=REPO)
    said = "error: --temperature -1.0: out of range; give a value from 0 to 2"
    assert done.returncode == 2 and done.stderr.strip() == said
