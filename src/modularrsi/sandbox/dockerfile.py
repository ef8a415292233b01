"""The Dockerfile subset that maps onto a host-tool sandbox.

A task's ``environment/Dockerfile`` is read into an :class:`EnvironmentPlan`: the working directory,
environment variables, files to copy, shell steps to run inside the sandbox at start, and the Debian
packages the image would install (which become *host requirements*). Anything outside the subset is
refused here, before a sandbox starts, with one line naming the file, the line and what to do.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

#: Base images whose userland is the host's own (Debian bookworm family), with the tools each implies.
BASE_IMAGES: dict[str, tuple[str, ...]] = {
    "debian": ("bash",),
    "ubuntu": ("bash",),
    "python": ("python3",),
    "buildpack-deps": ("gcc", "make", "git"),
    "gcc": ("gcc", "make"),
}

_PACKAGE_MANAGERS = ("apt-get", "apt", "apk", "yum", "dnf", "zypper", "pacman", "microdnf")
_IGNORED = {"LABEL", "CMD", "ENTRYPOINT", "EXPOSE", "STOPSIGNAL", "HEALTHCHECK", "SHELL", "VOLUME",
            "MAINTAINER", "ONBUILD"}


class DockerfileRefused(ValueError):
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


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Join backslash continuations; drop comments and blank lines; keep 1-based line numbers."""
    out: list[tuple[int, str]] = []
    buf, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not buf and (not stripped or stripped.startswith("#")):
            continue
        if buf and stripped.startswith("#"):
            continue
        if not buf:
            start = number
        if stripped.endswith("\\"):
            buf += stripped[:-1] + " "
            continue
        out.append((start, buf + stripped))
        buf = ""
    if buf:
        out.append((start, buf))
    return out


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


def _segments(command: str) -> list[list[str]]:
    """The simple commands of a shell line, as word lists (split at ``&&``, ``||``, ``;``, ``|``)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    segments: list[list[str]] = [[]]
    for token in lexer:
        if token in ("&&", "||", ";", "|", "&", ";;"):
            segments.append([])
        else:
            segments[-1].append(token)
    return [s for s in segments if s]


def _packages_in(segments: list[list[str]], workdir: str = "/") -> tuple[list[str], str | None]:
    """Debian packages an ``apt-get install`` asks for, or the refusal reason for other installers."""
    packages: list[str] = []
    venv: str | None = None
    for words in segments:
        tool = PurePosixPath(words[0]).name
        if tool in ("apt-get", "apt"):
            if "install" in words:
                after = words[words.index("install") + 1:]
                packages += [w.split("=")[0] for w in after if not w.startswith("-")]
            continue
        if tool in _PACKAGE_MANAGERS:
            return packages, f"'{tool}' installs into the system image"
        venv = _activated_venv(words) or venv
        refusal = _pip_refusal(words, venv, workdir)
        if refusal:
            return packages, refusal
    return packages, None


def _activated_venv(words: list[str]) -> str | None:
    """The venv a ``. DIR/bin/activate`` (or ``source``) segment activates."""
    if words[0] in (".", "source") and len(words) > 1 and words[1].endswith("/bin/activate"):
        return str(PurePosixPath(words[1]).parent.parent)
    return None


def _pip_refusal(words: list[str], venv: str | None, workdir: str) -> str | None:
    """Why a ``pip install`` cannot be replayed here: where it would write."""
    program = PurePosixPath(words[0])
    is_pip = program.name.startswith("pip") or words[1:3] == ["-m", "pip"] or words[:2] == ["uv", "pip"]
    if not is_pip or "install" not in words or {"--target", "-t", "--prefix", "--user"} & set(words):
        return None
    if program.parent.name == "bin" and str(program.parent.parent) not in ("/usr", "/usr/local", "/", "."):
        venv = str(program.parent.parent)
    if venv is None:
        return "'pip install' writes into the system Python"
    where = PurePosixPath(workdir) / venv  # a relative venv lives under the working directory
    if where.is_relative_to(workdir) and workdir != "/":
        return None
    top = "/" + where.parts[1]
    return f"'pip install' into the venv at {venv} writes under {top}, which is the host's (read-only here)"


def _is_package_segment(words: list[str]) -> bool:
    tool = PurePosixPath(words[0]).name
    return tool in ("apt-get", "apt") or (tool == "rm" and any("/var/lib/apt" in w for w in words))


#: Prefixed to RUN steps that mix package installs with other work: installs become no-ops (they were
#: checked against the host already) and cleaning apt's lists is skipped.
_PACKAGE_SHIMS = "apt-get() { :; }; apt() { :; }; "


def parse_dockerfile(path: Path) -> EnvironmentPlan:
    """Read ``path`` into a plan, or raise :class:`DockerfileRefused` naming every line outside the subset."""
    plan = EnvironmentPlan()
    build = _Build()
    problems: list[str] = []
    for number, line in _logical_lines(path.read_text()):
        instruction, _, rest = line.partition(" ")
        try:
            _apply(plan, build, instruction.upper(), rest.strip(), f"line {number}", number)
        except _Problem as exc:
            problems.append(f"line {number}: {exc}")
    if not plan.base:
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


def _apply(plan: EnvironmentPlan, build: _Build, instruction: str, rest: str, where: str, number: int) -> None:
    variables = build.variables(plan)
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
        plan.steps.append(_copy_step(rest, plan, variables, number, instruction))
    elif instruction == "RUN":
        _plan_run(plan, rest, number, build.args)
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


def _copy_step(rest: str, plan: EnvironmentPlan, variables: dict[str, str], number: int,
               instruction: str) -> CopyStep:
    flags = [w for w in shlex.split(rest) if w.startswith("--")]
    words = [w for w in shlex.split(rest) if not w.startswith("--")]
    if any(f.startswith("--from") for f in flags):
        raise _Problem(f"{instruction} --from copies out of another stage or image")
    if len(words) < 2:
        raise _Problem(f"{instruction} needs a source and a target")
    *sources, target = (_expand(w, variables) for w in words)
    if any(re.match(r"^[a-z]+://", s) for s in sources):
        raise _Problem(f"{instruction} from a URL needs the network at build time; ship the file")
    if not target.startswith("/"):
        trail = "/" if target.endswith("/") else ""
        target = str(PurePosixPath(plan.workdir) / target) + trail
    return CopyStep(tuple(sources), target, number)


def _plan_run(plan: EnvironmentPlan, command: str, number: int, args: dict[str, str]) -> None:
    if command.startswith("["):
        raise _Problem("exec-form RUN is not supported; use the shell form")
    try:
        segments = _segments(command)
    except ValueError as exc:
        raise _Problem(f"cannot parse this RUN line ({exc})") from None
    packages, refusal = _packages_in(segments, plan.workdir)
    if refusal:
        raise _Problem(refusal)
    plan.host_packages += packages
    if segments and all(_is_package_segment(words) for words in segments):
        return
    if any(_is_package_segment(words) for words in segments):
        command = _PACKAGE_SHIMS + re.sub(r"rm\s+-\S+\s+/var/lib/apt/lists/\S*", "true", command)
    env = {**args, **plan.env}  # as in a build, ARG values are in the environment of RUN
    plan.steps.append(RunStep(command, plan.workdir, tuple(env.items()), number))
