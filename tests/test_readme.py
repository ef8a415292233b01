"""The README and the docs as a newcomer meets them: every relative link leads to a file (and heading), the
README stays short, every ``modularrsi`` command line in its shell blocks parses, and the quickstart's
local-server path runs as written, against the fake OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import yaml
from testutil import REPO, claim_and_refuse
from typer.testing import CliRunner

from modularrsi.cli import app
from modularrsi.rollouts.results import RunResults

README = REPO / "README.md"
PAGES = [README, REPO / "tasks" / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LIMIT = 10240

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
runner = CliRunner()


def prose(text: str) -> str:
    """The page without its fenced blocks (a `#` there is a comment, a bracket is code)."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """The anchor a heading gets on a rendered page: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(m) for m in re.findall(r"^#{1,6} (.+)$", prose(page.read_text()), re.MULTILINE)}


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in LINK.findall(prose(page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue  # a URL, not a file of the checkout
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading '{anchor}' in {file.name}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_leads_to_a_file_and_heading(page):
    assert broken_links(page) == []


def test_every_docs_page_is_reachable_from_the_readme():
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in LINK.findall(prose(README.read_text()))}
    assert [p.name for p in sorted((REPO / "docs").glob("*.md")) if p.resolve() not in linked] == []


def test_readme_is_at_most_10_kb():
    assert len(README.read_bytes()) <= LIMIT


def shell_lines(text: str) -> list[str]:
    """The command lines of the shell blocks, continuation lines joined."""
    lines = []
    for language, body in FENCE.findall(text):
        if language in ("bash", "sh", "shell", "console"):
            lines += [line.strip() for line in body.replace("\\\n", " ").splitlines() if line.strip()]
    return lines


def modularrsi_commands(text: str) -> list[list[str]]:
    commands = []
    for line in shell_lines(text):
        words = shlex.split(line, comments=True)
        while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
            words = words[1:]  # VAR=value before the command
        if words and words[0] == "modularrsi":
            commands.append(words[1:])
    return commands


def split_command(words: list[str]):
    """(subcommand path, its command, the remaining arguments)."""
    command, path, args = typer.main.get_command(app), (), list(words)
    while hasattr(command, "commands") and args and not args[0].startswith("-"):
        path += (args.pop(0),)
        sub = command.commands.get(path[-1])
        assert sub is not None, f"modularrsi {' '.join(path)}: no such command"
        command = sub
    return path, command, args


def test_the_readme_shows_commands():
    assert len(modularrsi_commands(README.read_text())) >= 10


@pytest.mark.parametrize("words", modularrsi_commands(README.read_text()), ids=" ".join)
def test_readme_command_lines_parse(words):
    path, command, args = split_command(words)
    shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "300"})
    assert shown.exit_code == 0, shown.output
    flags = {a.split("=")[0] for a in args if a.startswith("-")}
    unlisted = {f for f in flags if not re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", shown.output)}
    assert not unlisted, f"modularrsi {' '.join(path)} --help does not list {', '.join(sorted(unlisted))}"
    if not unlisted:  # the whole line, values included, as the command's parser reads it
        command.make_context(" ".join(path), list(args))


def local_server_block() -> tuple[dict[str, str], list[str]]:
    """The exports and the `modularrsi run` line of the README's block that uses configs/local-server.yaml."""
    for _, body in FENCE.findall(README.read_text()):
        if "modularrsi run --config configs/local-server.yaml" in body:
            lines = [shlex.split(line, comments=True) for line in body.splitlines()]
            exports = dict(w[1].split("=", 1) for w in lines if w[:1] == ["export"])
            return exports, next(w[1:] for w in lines if w[:3] == ["modularrsi", "run", "--config"])
    raise AssertionError("the README has no local-server quickstart block")


def test_the_local_server_quickstart_runs_as_written(tmp_path):
    """The README's check of a local server, with the config's api_base pointed at the fake server."""
    from modularrsi.offline.fake_server import FakeOpenAIServer
    from modularrsi.rollouts.config import RunConfig

    exports, words = local_server_block()
    shipped = REPO / "configs" / "local-server.yaml"
    agent = RunConfig.load(shipped).roles.agent
    done = json.dumps({"analysis": "a", "plan": "p", "commands": [], "task_complete": True})
    with FakeOpenAIServer(responder=lambda request: done) as server:
        config = tmp_path / "local-server.yaml"
        config.write_text(shipped.read_text().replace(agent.api_base, server.base_url.rstrip("/")))
        args = [str(config) if w == "configs/local-server.yaml" else w for w in words]
        out = tmp_path / "run"
        result = subprocess.run([sys.executable, "-m", "modularrsi.cli", *args, "--out", str(out)], cwd=REPO,
                                capture_output=True, text=True, timeout=300,
                                env={**os.environ, "COLUMNS": "200", **exports})
        assert result.returncode == 0, result.stderr[-3000:]
        asked = [r for r in server.requests if "messages" in r]
        assert asked and {r["model"] for r in asked} == {agent.model.partition("/")[2]}
        assert {r.get("max_tokens") for r in asked} == {agent.max_output_tokens}
        key = f"Bearer {exports[agent.api_key_env]}"
        assert {h.get("authorization") for h in server.headers} == {key}  # the exported key, on every call
    results = RunResults.model_validate_json((out / "results.json").read_text())
    assert results.model == agent.model and not results.simulated
    assert len(results.attempts) == 1 and results.attempts[0].environment == "local"


def test_the_api_model_quickstart_runs_against_the_fake_server(tmp_path):
    """The README's first command — `modularrsi evolve --config configs/api-model.yaml` with the exported key —
    with every role's endpoint pointed at the fake server and the sizes cut to one task each (the shipped sizes
    are hours): the evolution completes, every role is called with its own model and the exported key."""
    from modularrsi.offline.fake_server import FakeOpenAIServer

    block = next(body for _, body in FENCE.findall(README.read_text()) if "configs/api-model.yaml" in body)
    words = next(shlex.split(line) for line in block.splitlines() if line.startswith("modularrsi evolve"))
    assert words == ["modularrsi", "evolve", "--config", "configs/api-model.yaml"]
    settings = yaml.safe_load((REPO / "configs" / "api-model.yaml").read_text())

    with FakeOpenAIServer(responder=claim_and_refuse) as server:
        for role in settings["roles"].values():
            role["api_base"] = server.base_url
        settings.update(tasks=[str(REPO / "tasks" / "small" / "pool" / "package-release-tag")],
                        eval_tasks=[str(REPO / "tasks" / "small" / "heldout" / "script-name-initials")],
                        modules=["completion"], k=1, eval_k=1, concurrency=2)
        config = tmp_path / "api-model.yaml"
        config.write_text(yaml.safe_dump(settings))
        result = subprocess.run([sys.executable, "-m", "modularrsi.cli", *words[1:3], str(config), "--out",
                                 str(tmp_path / "run")], cwd=REPO, capture_output=True, text=True, timeout=900,
                                env={**os.environ, "COLUMNS": "200", "OPENAI_API_KEY": "sk-quickstart"})
        assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
        asked = {r["model"] for r in server.requests if "messages" in r}
        assert {h.get("authorization") for h in server.headers} == {"Bearer sk-quickstart"}
    assert asked >= {"gpt-4o-mini"}  # the agent's model (the analyst and reviewer share it)
    assert (tmp_path / "run" / "eval" / "eval.json").is_file() and (tmp_path / "run" / "frozen").is_dir()
