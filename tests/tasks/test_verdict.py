"""The verifier convention of the shipped tasks (``tasks/verdict.sh``): every task carries the same copy and
uses it, and what it promises holds in a real LocalSandbox trial."""

from __future__ import annotations

import re
import subprocess

from harbor.models.trial.config import AgentConfig
from testutil import REPO, SHIPPED_TASKS

from modularrsi.tasks.check_forgery import ATTACKS, attack_script
from modularrsi.tasks.trials import environment_config, run_trial

VERDICT = REPO / "tasks" / "verdict.sh"
SHIPPED = SHIPPED_TASKS
#: A Python the verifier may start other than through verdict_python: a helper on stdin, or the code under test.
ALLOWED_PYTHON = re.compile(r"python3 (-I -|/app/)")


def test_every_shipped_verifier_sources_the_canonical_verdict_sh():
    assert len(SHIPPED) == 208  # 44 + 20 shipped first, 56 + 88 of the small-model tier
    canonical = VERDICT.read_bytes()
    stale = [p.name for p in SHIPPED if (p / "tests" / "verdict.sh").read_bytes() != canonical]
    assert not stale, f"tests/verdict.sh differs from tasks/verdict.sh (copy it over): {stale}"
    for task in SHIPPED:
        code = [line for line in (task / "tests" / "test.sh").read_text().splitlines()[1:]
                if line.strip() and not line.startswith("#")]
        assert code[0] == ". /tests/verdict.sh", task.name


def test_no_shipped_verifier_writes_the_reward_or_starts_python_itself():
    for task in SHIPPED:
        text = (task / "tests" / "test.sh").read_text()
        assert "reward" not in text.replace("# Verifier: reward 0", ""), f"{task.name}: use verdict_pass"
        assert "trap " not in text, f"{task.name}: put clean-up in verdict_cleanup"
        for match in re.finditer(r"(?<![\w/.-])python3\s.{0,8}", text):
            assert ALLOWED_PYTHON.match(match.group()), f"{task.name}: '{match.group()}': use verdict_python"
        assert "verdict_pass" in text, task.name


def test_attack_scripts_are_bash():
    for script in [attack_script(ATTACKS), *(attack_script([a]) for a in ATTACKS)]:
        result = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
    assert len({a.name for a in ATTACKS}) == len(ATTACKS)


CASES = """\
#!/bin/bash
. /tests/verdict.sh
cd /app || exit 0
results=""
expect() { if "$@" > /dev/null 2>&1; then results+="pass "; else results+="fail "; fi; }
expect verdict_python --path /app /tests/returns.py
expect verdict_python /tests/exits0.py
expect verdict_python /tests/exits1.py
expect verdict_python --path /app /tests/imports.py exits_at_import
expect verdict_python --path /app /tests/imports.py sys_exit_at_import
expect verdict_python --path /app -m unittest discover -s /tests -p 'unit_*.py'
expect verdict_python --path /app -m unittest discover -s /tests -p 'bad_*.py'
expect python3 -c pass
echo "$results|$PATH|${PYTHONPATH-unset}|$HOME" > /logs/verifier/cases.txt
python3 /app/writes_reward.py
"""
FILES = {
    "environment/app/fine.py": "VALUE = 42\n",
    "environment/app/exits_at_import.py": "import os\nos._exit(0)\n",
    "environment/app/sys_exit_at_import.py": "import sys\nsys.exit(0)\n",
    "environment/app/sitecustomize.py": "import os\nos._exit(0)\n",
    "environment/app/writes_reward.py": 'open("/logs/verifier/reward.txt", "w").write("1")\n'
                                        'open("/logs/verifier/reward.json", "w").write(\'{"reward": 1}\')\n',
    "tests/returns.py": "import fine\n\nassert fine.VALUE == 42\n",
    "tests/exits0.py": "import sys\n\nsys.exit(0)\n",
    "tests/exits1.py": "raise SystemExit(1)\n",
    "tests/imports.py": "import importlib\nimport sys\n\nimportlib.import_module(sys.argv[1])\n",
    "tests/unit_fine.py": "import unittest\n\nimport fine\n\n\nclass T(unittest.TestCase):\n"
                          "    def test_value(self):\n        self.assertEqual(fine.VALUE, 42)\n",
    "tests/bad_exits.py": "import exits_at_import  # noqa: F401\n",
}
#: The agent phase plants a usercustomize.py and a .pth file in root's user site.
PLANT_USER_SITE = ("#!/bin/bash\n# step: plant\nd=$(python3 -c 'import site; print(site.getusersitepackages())')\n"
                   "mkdir -p \"$d\" && for f in usercustomize.py zz.pth; do echo 'import os; os._exit(0)' > \"$d/$f\"; "
                   "done\n")


async def test_verdict_sh_keeps_the_verdict_the_verifiers_own(task_factory, tmp_path):
    task = task_factory(name="verdict", test_sh=CASES, solve_sh=PLANT_USER_SITE,
                        dockerfile="FROM debian:bookworm-slim\nWORKDIR /app\nCOPY app/ /app/\nENV PYTHONPATH=/app\n",
                        files={**FILES, "tests/verdict.sh": VERDICT.read_text()})
    outcome = await run_trial(task, AgentConfig(name="oracle"), tmp_path / "trials", environment_config("local"),
                              "verdict")
    assert outcome.exception is None, outcome.exception
    results, path, pythonpath, home = (outcome.trial_dir / "verifier" / "cases.txt").read_text().strip().split("|")
    assert results.split() == ["pass", "pass", "fail", "fail", "fail", "pass", "fail", "pass"]
    assert (path, pythonpath) == ("/usr/sbin:/usr/bin:/sbin:/bin", "unset") and home.startswith("/tmp/verdict.")
    assert outcome.reward == 0.0  # the agent's code wrote reward.txt and reward.json; the verdict replaced both
