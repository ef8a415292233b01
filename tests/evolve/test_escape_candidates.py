"""The static gate refuses every function-escape candidate (tests/support/escapes.py) before any code
of it runs, and still passes the constructs that functions legitimately use."""

from __future__ import annotations

import pytest
from escapes import CANDIDATES, source
from staging import BASE, staged

from modularrsi.evolve.gates.static import StaticGate
from modularrsi.evolve.proposal import Proposal
from modularrsi.harness.checks import check_source
from modularrsi.harness.resources import terminus_template

WHY = ("Lowers the observation budget because long terminal dumps crowd the context, so the agent keeps "
       "its plan in view.")


def test_there_are_at_least_twenty_candidates():
    assert len(CANDIDATES) >= 20


@pytest.mark.parametrize("name", sorted(CANDIDATES))
async def test_static_gate_refuses_escape_candidate(tmp_path, name):
    canary = tmp_path / "canary"
    staging = staged(tmp_path, {"observation/limit_output": source(name, str(canary))})
    proposal = Proposal.build("observation", BASE.path, staging, WHY, "Long outputs crowd the context.", [])
    verdict = await StaticGate().check(proposal)
    assert not verdict.passed, name
    assert verdict.details["stage"] == "constructs" and verdict.details["file"].endswith("limit_output.py")
    assert not canary.exists()  # refused before anything of it ran


@pytest.mark.parametrize("body", [
    "import re\nimport json\nfrom dataclasses import dataclass, field\nfrom collections import deque\n",
    "S = 'Reply as {\"analysis\": \"...\", \"plan\": \"...\"}; {0} turns, {name} ok'\n",
    "from modularrsi.harness.resources import terminus_template\nT = terminus_template('timeout.txt')\n",
    "from harbor.agents.terminus_2.terminus_json_plain_parser import TerminusJSONPlainParser\n",
    "def f(ctx):\n    return ctx.state.recent_keystrokes(3), ctx.params.get('n'), len(ctx.history)\n",
    "async def g(ctx):\n    return await ctx.terminal.exec('ls'), await ctx.model.ask([], 'summary')\n",
    "class Seen:\n    def __init__(self):\n        self.items = set()\n",
])
def test_allowed_constructs_pass(body):
    check_source("f.py", body)


def test_resources_are_looked_up_by_name_from_a_fixed_set_at_run_time_too():
    assert "{instruction}" in terminus_template()
    for bad in ("../../../../etc/passwd", "/etc/passwd", "templates/../timeout.txt"):
        with pytest.raises(ValueError, match="unknown template"):
            terminus_template(bad)
