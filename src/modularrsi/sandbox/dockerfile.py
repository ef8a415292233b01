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
    """The Dockerfile asks for something a host-tool sandbox cannot provide."""


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


def _expand(value: str, variables: dict[str, str]) -> str:
    def sub(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return variables.get(name, "")

    return re.sub(r"\$\{(\w+)\}|\$(\w+)", sub, value)


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


def _packages_in(segments: list[list[str]]) -> tuple[list[str], str | None]:
    """Debian packages an ``apt-get install`` asks for, or the refusal reason for other managers."""
    packages: list[str] = []
    for words in segments:
        tool = PurePosixPath(words[0]).name
        if tool in ("apt-get", "apt"):
            if "install" in words:
                after = words[words.index("install") + 1:]
                packages += [w.split("=")[0] for w in after if not w.startswith("-")]
            continue
        if tool in _PACKAGE_MANAGERS:
            return packages, f"'{tool}' installs into the system image"
        is_pip = tool in ("pip", "pip3") or words[:3] in (["python", "-m", "pip"], ["python3", "-m", "pip"])
        if is_pip and "install" in words and not {"--target", "-t", "--prefix", "--user"} & set(words):
            return packages, "'pip install' writes into the system Python"
    return packages, None


def _is_package_segment(words: list[str]) -> bool:
    tool = PurePosixPath(words[0]).name
    return tool in ("apt-get", "apt") or (tool == "rm" and any("/var/lib/apt" in w for w in words))


#: Prefixed to RUN steps that mix package installs with other work: installs become no-ops (they were
#: checked against the host already) and cleaning apt's lists is skipped.
_PACKAGE_SHIMS = "apt-get() { :; }; apt() { :; }; "


def parse_dockerfile(path: Path) -> EnvironmentPlan:
    """Read ``path`` into a plan, or raise :class:`DockerfileRefused` naming the line."""
    plan = EnvironmentPlan()
    variables: dict[str, str] = {}
    for number, line in _logical_lines(path.read_text()):
        instruction, _, rest = line.partition(" ")
        instruction, rest = instruction.upper(), rest.strip()
        where = f"{path}:{number}"
        if instruction == "FROM":
            _plan_base(plan, rest, where)
        elif instruction == "ARG":
            name, _, default = rest.partition("=")
            variables.setdefault(name.strip(), default.strip().strip('"'))
        elif instruction == "ENV":
            pairs = _parse_pairs(rest, {**variables, **plan.env})
            plan.env.update(pairs)
        elif instruction == "WORKDIR":
            target = _expand(rest, {**variables, **plan.env})
            plan.workdir = str(PurePosixPath(plan.workdir) / target)
        elif instruction in ("COPY", "ADD"):
            plan.steps.append(_copy_step(rest, plan, variables, where, number, instruction))
        elif instruction == "RUN":
            _plan_run(plan, rest, where, number)
        elif instruction == "USER":
            plan.user = rest.split(":")[0]
        elif instruction not in _IGNORED:
            raise DockerfileRefused(
                f"{where}: {instruction} is outside the Dockerfile subset LocalSandbox supports "
                "(FROM, ARG, ENV, WORKDIR, COPY, ADD, RUN, USER); use a Docker environment"
            )
    if not plan.base:
        raise DockerfileRefused(f"{path}: no FROM line")
    return plan


def _plan_base(plan: EnvironmentPlan, rest: str, where: str) -> None:
    image = rest.split()[0]
    if " AS " in rest.upper() or plan.base:
        raise DockerfileRefused(f"{where}: multi-stage builds are not supported by LocalSandbox")
    name = image.split("/")[-1].split(":")[0].split("@")[0]
    if name not in BASE_IMAGES:
        known = ", ".join(sorted(BASE_IMAGES))
        raise DockerfileRefused(
            f"{where}: base image '{image}' does not map onto this host's tools "
            f"(known bases: {known}); use --env docker or another Harbor environment"
        )
    plan.base = image
    plan.host_tools += list(BASE_IMAGES[name])


def _copy_step(rest, plan, variables, where, number, instruction) -> CopyStep:
    words = [w for w in shlex.split(rest) if not w.startswith("--")]
    if any(w.startswith("--from") for w in shlex.split(rest)):
        raise DockerfileRefused(f"{where}: COPY --from needs an image; not supported by LocalSandbox")
    if len(words) < 2:
        raise DockerfileRefused(f"{where}: {instruction} needs a source and a target")
    *sources, target = (_expand(w, {**variables, **plan.env}) for w in words)
    if any(re.match(r"^[a-z]+://", s) for s in sources):
        raise DockerfileRefused(f"{where}: {instruction} from a URL needs the network; ship the file")
    if not target.startswith("/"):
        trail = "/" if target.endswith("/") else ""
        target = str(PurePosixPath(plan.workdir) / target) + trail
    return CopyStep(tuple(sources), target, number)


def _plan_run(plan: EnvironmentPlan, command: str, where: str, number: int) -> None:
    if command.startswith("["):
        raise DockerfileRefused(f"{where}: exec-form RUN is not supported; use the shell form")
    try:
        segments = _segments(command)
    except ValueError as exc:
        raise DockerfileRefused(f"{where}: cannot parse this RUN line ({exc})") from None
    packages, refusal = _packages_in(segments)
    if refusal:
        raise DockerfileRefused(
            f"{where}: {refusal}, which a host-tool sandbox cannot do; "
            "install it on the host or use --env docker"
        )
    plan.host_packages += packages
    if segments and all(_is_package_segment(words) for words in segments):
        return
    if any(_is_package_segment(words) for words in segments):
        command = _PACKAGE_SHIMS + re.sub(r"rm\s+-\S+\s+/var/lib/apt/lists/\S*", "true", command)
    plan.steps.append(RunStep(command, plan.workdir, tuple(plan.env.items()), number))
