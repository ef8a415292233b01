"""bench/small_tier/rehearse_editor.py: an arm's editor, again, on a direction its run found - the request a
lane's first candidate gets, with the replies its trials recorded - here against the fake server."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import yaml
from editor_helpers import LANE_KEY_ENV, tool_use_run
from testutil import REPO

from modularrsi.offline.fake_server import FakeOpenAIServer

FENCE = "`" * 3
REPAIR = f"{FENCE}python\ndef repair_reply(text):\n    return text.replace(chr(10), chr(32))\n{FENCE}"
DESCRIPTION = ("Agents lose turns to refused replies because the harness parser rejects raw line breaks in strings; "
               "this change joins lines before parsing, so that such replies run as commands.")


def test_the_editor_of_a_config_gets_a_lanes_request_once_per_try(tmp_path, monkeypatch):
    monkeypatch.setenv(LANE_KEY_ENV, "sk-lane")
    run = tool_use_run(tmp_path / "run")
    with FakeOpenAIServer([REPAIR, DESCRIPTION, "no", "no"]) as server:
        settings = yaml.safe_load((run / "config.yaml").read_text())
        settings["roles"]["editor"]["api_base"] = server.base_url
        config = tmp_path / "editor.yaml"
        config.write_text(yaml.safe_dump(settings))
        done = subprocess.run([sys.executable, str(REPO / "bench" / "small_tier" / "rehearse_editor.py"), str(run),
                               "--config", str(config), "--tries", "2", "--max-turns", "2",
                               "--out", str(tmp_path / "out")],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path,
                              env={**os.environ, LANE_KEY_ENV: "sk-lane"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("tool_use.parse-repair.")  # the refused reply, the solving one and the claim
    assert lines[0].endswith(": 3 recorded replies (1 refused); editor format guided")
    assert lines[1].startswith("try 0: proposal: manifest.json, modules/tool_use/terminus_json.py - Agents lose")
    assert lines[2].startswith("try 1: editor failed: the editor did not finish within 2 turns")
    task = json.loads((tmp_path / "out" / "0" / "editor.jsonl").read_text().splitlines()[1])["content"]
    assert "The parser refused it: Invalid JSON: Invalid control character" in task
    assert "parse_before_repair_reply" in (tmp_path / "out" / "0" / "staging" / "modules" / "tool_use" /
                                           "terminus_json.py").read_text()


def test_a_run_without_directions_is_refused_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, str(REPO / "bench" / "small_tier" / "rehearse_editor.py"), str(tmp_path)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.strip().splitlines() == [
        f"error: {tmp_path}/lanes/tool_use/epoch_0/directions.json: missing - give an evolve run whose tool_use lane "
        "has analysed its first epoch (bench/small_tier/run.sh evolve)"]
