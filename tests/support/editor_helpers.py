"""The LLM editor's test fixtures: a weak model over real HTTP (LiteLLM -> the fake OpenAI-compatible server),
a completion direction to edit for, and a function file that passes every check."""

from __future__ import annotations

from modularrsi.evolve.editor import EditRequest
from modularrsi.evolve.findings import Direction, Finding
from modularrsi.harness import BASELINE
from modularrsi.models.litellm_backend import LiteLLMModel
from modularrsi.models.settings import ModelSettings
from modularrsi.offline.fake_server import FakeOpenAIServer

KEY_ENV = "WEAK_MODEL_KEY"  # set by each test module's autouse fixture
DESCRIPTION = "Completion claims go unchecked because nothing asks for evidence; asking once leads to a check."
FENCE = "`" * 3
GOOD_FN = '''"""Asks for evidence once."""
DESCRIPTION = "Before the first claim is accepted, asks for one command whose output shows the result."
MODULE = "completion"
PARAMETERS = {"reminder": "Show the result with a command, then claim again."}
ROLE = "additive"


def check(ctx, claim):
    first = not ctx.memo.get("asked")
    ctx.memo["asked"] = True
    return ctx.params["reminder"] if first else None
'''


def llm(server: FakeOpenAIServer) -> LiteLLMModel:
    return LiteLLMModel(ModelSettings(model="openai/weak", api_base=server.base_url, api_key_env=KEY_ENV,
                                      timeout_s=5, max_retries=1), backoff_s=0.01)


def completion_direction() -> Direction:
    finding = Finding(task="t1", lens="completion", kind="contrastive", is_culprit=True, locked_module="completion",
                      divergence="completion claimed with no check", mechanism="completion-evidence-check",
                      suggested_change="ask for a verifying command before accepting a claim", pass_count=1,
                      attempts=3)
    return Direction(id="d1", module="completion", mechanism="completion-evidence-check", tasks=["t1"],
                     summary=finding.suggested_change, findings=[finding], vote=1.0, raw_support=1)


def request() -> EditRequest:
    return EditRequest(direction=completion_direction(), parent_dir=BASELINE, modules=["completion"])
