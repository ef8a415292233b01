"""Per-step harness overhead: ModularAgent(gen_0) vs Harbor's Terminus-2 on the same scripted episode.

    python bench/harness.py [--n 5]

Both agents run the same 5-turn episode (served by a local fake OpenAI-compatible server through
LiteLLM, in LocalSandbox). Per-step overhead = (agent execution time − model request time − the
commands' own waits) / turns, taken from each trial's own timing. Printed as a ratio against
Terminus-2 measured in the same run (target ≤ 1.0), plus ModularAgent's wall-time split.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
from pathlib import Path

from episode import EPISODE, WAIT_S, make_task, responder
from harbor.models.trial.config import AgentConfig

from modularrsi.offline.fake_server import FakeOpenAIServer
from modularrsi.tasks.trials import environment_config, run_trial
from modularrsi.util.outbound import apply_offline_defaults


def agent_config(label: str, url: str) -> AgentConfig:
    if label == "terminus-2":
        return AgentConfig(name="terminus-2", model_name="openai/fake-model",
                           kwargs={"api_base": url, "record_terminal_session": False})
    return AgentConfig(import_path="modularrsi.harness:ModularAgent", model_name="openai/fake-model",
                       kwargs={"api_base": url, "api_key_env": "OPENAI_API_KEY"})


def overhead_per_step(trial_dir: Path, label: str) -> tuple[float, dict]:
    result = json.loads((trial_dir / "result.json").read_text())
    timing = result["agent_execution"]
    from datetime import datetime

    started, finished = (datetime.fromisoformat(timing[k]) for k in ("started_at", "finished_at"))
    wall = (finished - started).total_seconds()
    meta = result["agent_result"]["metadata"] or {}
    model_s = sum(meta.get("api_request_times_msec", [])) / 1000 if label == "terminus-2" else meta["model_latency_s"]
    return (wall - model_s - WAIT_S) / len(EPISODE), {"wall": wall, "model": model_s, "waits": WAIT_S}


async def measure(n: int) -> dict[str, list[float]]:
    import os

    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    root = Path(tempfile.mkdtemp(prefix="bench-harness-"))
    task, env = make_task(root / "tasks"), environment_config("local")
    samples: dict[str, list[float]] = {"terminus-2": [], "modular-agent": []}
    splits: list[dict] = []
    with FakeOpenAIServer(responder=responder()) as server:
        for i in range(n):
            for label in samples:  # interleaved, so drift hits both alike
                outcome = await run_trial(task, agent_config(label, server.base_url), root / label, env,
                                          f"{label}-{i}")
                assert outcome.reward == 1.0, outcome.exception
                per_step, split = overhead_per_step(outcome.trial_dir, label)
                samples[label].append(per_step)
                if label == "modular-agent":
                    splits.append(split)
    return {"samples": samples, "splits": splits}


def main(n: int) -> None:
    apply_offline_defaults()
    data = asyncio.run(measure(n))
    base = statistics.median(data["samples"]["terminus-2"])
    print(f"per-step harness overhead on a {len(EPISODE)}-turn scripted episode, n={n} each (ms)\n")
    print("| agent              | median ms/step | ratio vs Terminus-2 |")
    print("|--------------------|----------------|---------------------|")
    for label, values in data["samples"].items():
        median = statistics.median(values)
        print(f"| {label:<18} | {median * 1000:14.1f} | {median / base:19.2f} |")
    split = data["splits"][-1]
    harness = split["wall"] - split["model"] - split["waits"]
    print(f"\nModularAgent episode wall-time split (last run, {split['wall']:.2f} s): model latency "
          f"{split['model']:.2f} s, terminal waits {split['waits']:.2f} s (the commands' own durations, "
          f"slept in full as Terminus-2 does), harness overhead {harness:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5)
    main(parser.parse_args().n)
