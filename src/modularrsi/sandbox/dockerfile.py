"""The Dockerfile subset that maps onto a host-tool sandbox.

A task's ``environment/Dockerfile`` is read into an :class:`EnvironmentPlan`: the working directory,
environment variables, files to copy, shell steps to run inside the sandbox at start, and the Debian
packages the image would install (which become *host requirements*). Anything outside the subset is
refused here, before a sandbox starts, with one line naming the file, the line and what to do.

Heredocs are read with their instruction (:mod:`modularrsi.util.dockerfile_text`): a RUN heredoc is the
script the sandbox's shell runs (:mod:`modularrsi.sandbox.dockerfile_run`), a ``COPY <<EOF /path``
heredoc a file written at start (its variables expanded unless its delimiter is quoted, as BuildKit does).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from modularrsi.sandbox.dockerfile_run import RunRefused, file_script, plan_run
from modularrsi.util.dockerfile_text import Instruction, instructions
from modularrsi.util.errors import UserError

#: Base images whose userland is the host's own (Debian bookworm family), with the tools each implies.
BASE_IMAGES: dict[str, tuple[str, ...]] = {
    "debian": ("bash",),
    "ubuntu": ("bash",),
    "python": ("python3",),
    "buildpack-deps": ("gcc", "make", "git"),
    "gcc": ("gcc", "make"),
}

_IGNORED = {"LABEL", "CMD", "ENTRYPOINT", "EXPOSE", "STOPSIGNAL", "HEALTHCHECK", "SHELL", "VOLUME",
            "MAINTAINER", "ONBUILD"}


class DockerfileRefused(UserError):
    """The Dockerfile asks for something a host-tool sandbox cannot provide: every problem, one line."""

    def __init__(self, path: Path, problems: list[str]):
        self.path, self.problems = path, problems
        super().__init__(f"{path}: {'; '.join(problems)} — outside what LocalSandbox replays on this host; "
                         "run it with --env auto (a container engine) or --env docker / podman")


@dataclass(frozen=True)
class CopyStep:
    """Copy ``sources`` (relative to the environment dir) to ``target`` inside the sandbox."""

    sources: tuple[str, ...]
    target: str
    line: int


@dataclass(frozen=True)
class RunStep:
    """A shell step executed inside the sandbox at start, in ``workdir`` with ``env``."""

    command: str
    workdir: str
    env: tuple[tuple[str, str], ...]
    line: int


@dataclass
class EnvironmentPlan:
    """What LocalSandbox must do to reproduce the image on the host."""

    base: str = ""
    workdir: str = "/"
    env: dict[str, str] = field(default_factory=dict)
    steps: list[CopyStep | RunStep] = field(default_factory=list)
    host_packages: list[str] = field(default_factory=list)
    host_tools: list[str] = field(default_factory=list)
    user: str | None = None


#: The environment every Debian-family base image starts with (what ``${PATH}`` means before any ENV).
BASE_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
_VARIABLE = re.compile(r"\\(\$)|\$\{(\w+)(?::([-+])([^}]*))?\}|\$(\w+)")


def _expand(value: str, variables: dict[str, str]) -> str:
    """Docker's substitution: ``$VAR``, ``${VAR}``, ``${VAR:-default}``, ``${VAR:+alternative}``;
    ``\\$`` is a literal dollar; an unset variable is empty."""
    def sub(match: re.Match[str]) -> str:
        if match.group(1):
            return "$"
        name = match.group(2) or match.group(5)
        current = variables.get(name, "")
        if match.group(3) == "-":
            return current or _expand(match.group(4), variables)
        if match.group(3) == "+":
            return _expand(match.group(4), variables) if current else ""
        return current

    return _VARIABLE.sub(sub, value)


def _parse_pairs(rest: str, variables: dict[str, str]) -> dict[str, str]:
    """``ENV A=1 B="x y"`` or the legacy ``ENV A 1``."""
    tokens = shlex.split(rest)
    if tokens and "=" not in tokens[0]:
        return {tokens[0]: _expand(" ".join(tokens[1:]), variables)}
    pairs = {}
    for token in tokens:
        key, _, value = token.partition("=")
        pairs[key] = _expand(value, variables)
    return pairs


def parse_dockerfile(path: Path) -> EnvironmentPlan:
    """Read ``path`` into a plan, or raise :class:`DockerfileRefused` naming every line outside the subset."""
    plan = EnvironmentPlan()
    build = _Build()
    problems: list[str] = []
    for instruction in instructions(path.read_text()):
        try:
            if instruction.unclosed:
                raise _Problem(f"the heredoc <<{instruction.unclosed} is never closed by a line "
                               f"'{instruction.unclosed}'")
            _apply(plan, build, instruction)
        except (_Problem, RunRefused) as exc:
            problems.append(f"line {instruction.line}: {exc}")
    if not build.stages:
        problems.append("no FROM line")
    if len(build.stages) > 1:
        problems.append(f"a multi-stage build ({len(build.stages)} stages) needs an image builder")
    if problems:
        raise DockerfileRefused(path, problems)
    return plan


class _Problem(Exception):
    """One instruction outside the subset (the reason)."""


@dataclass
class _Build:
    """What parsing carries between instructions: ARG values and the stages seen."""

    args: dict[str, str] = field(default_factory=dict)
    stages: list[str] = field(default_factory=list)

    def variables(self, plan: EnvironmentPlan) -> dict[str, str]:
        return {**BASE_ENV, **self.args, **plan.env}


def _apply(plan: EnvironmentPlan, build: _Build, parsed: Instruction) -> None:
    variables = build.variables(plan)
    instruction, rest = parsed.keyword, parsed.rest
    if instruction == "FROM":
        _plan_base(plan, build, rest)
    elif instruction == "ARG":
        for token in shlex.split(rest):
            name, eq, default = token.partition("=")
            build.args[name] = build.args.get(name) or (_expand(default, variables) if eq else "")
    elif instruction == "ENV":
        plan.env.update(_parse_pairs(rest, variables))
    elif instruction == "WORKDIR":
        plan.workdir = str(PurePosixPath(plan.workdir) / _expand(rest, variables))
    elif instruction in ("COPY", "ADD"):
        plan.steps += _copy_steps(parsed, plan, variables)
    elif instruction == "RUN":
        _plan_run(plan, parsed, build.args)
    elif instruction == "USER":
        plan.user = _expand(rest, variables).split(":")[0]
    elif instruction not in _IGNORED:
        raise _Problem(f"{instruction} is outside the Dockerfile subset LocalSandbox supports "
                       "(FROM, ARG, ENV, WORKDIR, COPY, ADD, RUN, USER)")


def _plan_base(plan: EnvironmentPlan, build: _Build, rest: str) -> None:
    words = [w for w in rest.split() if not w.startswith("--platform")]
    image = _expand(words[0], build.args) if words else ""
    stage = words[2] if len(words) >= 3 and words[1].upper() == "AS" else f"stage {len(build.stages)}"
    build.stages.append(stage)
    if plan.base:
        return  # a later stage: refused once, as a multi-stage build
    name = image.split("@")[0].split("/")[-1].split(":")[0]
    if name not in BASE_IMAGES:
        known = ", ".join(sorted(BASE_IMAGES))
        raise _Problem(f"base image '{image}' does not map onto this host's tools (known bases: {known})")
    plan.base = image
    plan.host_tools += list(BASE_IMAGES[name])


def _copy_steps(parsed: Instruction, plan: EnvironmentPlan, variables: dict[str, str]) -> list[CopyStep | RunStep]:
    instruction, rest, number = parsed.keyword, parsed.rest, parsed.line
    flags = [w for w in shlex.split(rest) if w.startswith("--")]
    words = [w for w in shlex.split(rest) if not w.startswith("--")]
    if any(f.startswith("--from") for f in flags):
        raise _Problem(f"{instruction} --from copies out of another stage or image")
    if len(words) < 2:
        raise _Problem(f"{instruction} needs a source and a target")
    *sources, target = (_expand(w, variables) for w in words)
    if not target.startswith("/"):
        trail = "/" if target.endswith("/") else ""
        target = str(PurePosixPath(plan.workdir) / target) + trail
    if parsed.heredocs:
        return _heredoc_files(parsed, sources, target, flags, variables)
    if any(re.match(r"^[a-z]+://", s) for s in sources):
        raise _Problem(f"{instruction} from a URL needs the network at build time; ship the file")
    return [CopyStep(tuple(sources), target, number)]


def _heredoc_files(parsed: Instruction, sources: list[str], target: str, flags: list[str],
                   variables: dict[str, str]) -> list[CopyStep | RunStep]:
    """``COPY <<EOF /path``: each heredoc written as a file (its variables expanded unless it is quoted)."""
    if len(sources) != len(parsed.heredocs) or not all(s.startswith("<<") for s in sources):
        raise _Problem(f"{parsed.keyword} mixes heredocs and files; split it into one {parsed.keyword} per kind")
    chmod = next((f.partition("=")[2] for f in flags if f.startswith("--chmod=")), "")
    steps: list[CopyStep | RunStep] = []
    for heredoc in parsed.heredocs:
        path = target if len(sources) == 1 and not target.endswith("/") else f"{target.rstrip('/')}/{heredoc.name}"
        content = heredoc.body if heredoc.quoted else _expand(heredoc.body, variables)
        steps.append(RunStep(file_script(path, content, chmod), "/", (), parsed.line))
    return steps


def _plan_run(plan: EnvironmentPlan, parsed: Instruction, args: dict[str, str]) -> None:
    packages, command = plan_run(parsed.rest, parsed.heredocs, plan.workdir)
    plan.host_packages += packages
    if command is None:
        return
    env = {**args, **plan.env}  # as in a build, ARG values are in the environment of RUN
    plan.steps.append(RunStep(command, plan.workdir, tuple(env.items()), parsed.line))
