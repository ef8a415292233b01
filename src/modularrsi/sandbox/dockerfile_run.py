"""RUN lines of the Dockerfile subset: the Debian packages they install (checked against the host, not
run), where a ``pip install`` would write, and the shell text LocalSandbox replays.

A RUN heredoc is replayed as BuildKit runs it: a command that is only a heredoc (``RUN <<EOF``), or a
heredoc fed to a shell (``RUN <<EOF bash -e``), is its body run as a script; a heredoc fed to another
command (``RUN python3 <<PY``) is the command line with its bodies after it, handed to the shell whole.
A script's package installs are found line by line, with the bodies of its own heredocs skipped.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePosixPath

from modularrsi.util.dockerfile_text import Heredoc, heredoc_openers
from modularrsi.util.errors import UserError

_PACKAGE_MANAGERS = ("apt-get", "apt", "apk", "yum", "dnf", "zypper", "pacman", "microdnf")
_SHELLS = ("sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/bash", "/usr/bin/env bash")
#: Prefixed to RUN steps that mix package installs with other work: installs become no-ops (they were
#: checked against the host already) and cleaning apt's lists is skipped.
_PACKAGE_SHIMS = "apt-get() { :; }; apt() { :; }; "


class RunRefused(UserError):
    """A RUN line LocalSandbox cannot replay (the reason)."""


def plan_run(command: str, heredocs: tuple[Heredoc, ...], workdir: str) -> tuple[list[str], str | None]:
    """(the Debian packages ``command`` installs, the shell text to replay, or None when installing
    them was all it did); :class:`RunRefused` when it cannot be replayed here."""
    if command.startswith("["):
        raise RunRefused("exec-form RUN is not supported; use the shell form")
    script = _heredoc_script(command, heredocs)
    lines = _script_lines(script) if script is not None else [command]  # a command's own bodies are its data
    try:
        segments = [segment for line in lines for segment in _segments(line)]
    except ValueError as exc:
        raise RunRefused(f"cannot parse this RUN line ({exc})") from None
    packages, refusal = _packages_in(segments, workdir)
    if refusal:
        raise RunRefused(refusal)
    if segments and all(_is_package_segment(words) for words in segments):
        return packages, None
    text = script if script is not None else _with_bodies(command, heredocs)
    if any(_is_package_segment(words) for words in segments):
        text = _PACKAGE_SHIMS + re.sub(r"rm\s+-\S+\s+/var/lib/apt/lists/\S*", "true", text)
    return packages, text


def _with_bodies(command: str, heredocs: tuple[Heredoc, ...]) -> str:
    """The command line with its heredoc bodies after it, as the shell reads them; a lone heredoc that
    starts with ``#!`` is written to a file and run, as BuildKit does."""
    if not heredocs:
        return command
    if len(heredocs) == 1 and heredocs[0].body.startswith("#!") and command.strip() == heredocs[0].token:
        path = "/tmp/.modularrsi-run-heredoc"
        return file_script(path, heredocs[0].body, "755") + f"{path}; status=$?; rm -f {path}; exit $status\n"
    return command + "\n" + "".join(h.body + h.name + "\n" for h in heredocs)


def _heredoc_script(command: str, heredocs: tuple[Heredoc, ...]) -> str | None:
    """The script a RUN heredoc runs when its command is only the heredoc, or a shell reading it."""
    if len(heredocs) != 1 or heredocs[0].body.startswith("#!"):
        return None
    try:
        words = [w for w in shlex.split(command, posix=False) if not w.startswith("--")]
    except ValueError:
        return None
    rest = [w for w in words if w != heredocs[0].token]
    if len(rest) == len(words):
        return None
    shell, flags = (" ".join(rest[:2]), rest[2:]) if rest[:2] == ["/usr/bin/env", "bash"] else \
        (rest[0] if rest else "sh", rest[1:])
    if shell not in _SHELLS or not all(re.fullmatch(r"-[abd-z]+|pipefail", f) for f in flags):
        return None
    return (f"set {' '.join(flags)}\n" if flags else "") + heredocs[0].body


def _script_lines(script: str) -> list[str]:
    """The command lines of a shell script: continuations and open quotes joined, comment lines and the
    bodies of the script's own heredocs skipped."""
    lines, out, index, buffer = script.splitlines(), [], 0, ""
    while index < len(lines):
        line, index = lines[index], index + 1
        if not buffer and line.lstrip().startswith("#"):
            continue
        if line.rstrip().endswith("\\"):
            buffer += line.rstrip()[:-1] + " "
            continue
        buffer += line
        if not _balanced(buffer) and index < len(lines):
            buffer += "\n"
            continue
        out.append(buffer)
        for _, name, chomp, _ in heredoc_openers(buffer):
            while index < len(lines) and (lines[index].lstrip("\t") if chomp else lines[index]) != name:
                index += 1
            index += 1
        buffer = ""
    return out + ([buffer] if buffer else [])


def _balanced(line: str) -> bool:
    try:
        shlex.split(line, comments=True)
    except ValueError:
        return False
    return True


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


def file_script(path: str, content: str, chmod: str = "") -> str:
    """Shell text that writes ``content`` to ``path`` (a ``COPY <<EOF path`` heredoc), creating its directory."""
    delimiter = "MODULARRSI_HEREDOC_END"
    mode = f" && chmod {shlex.quote(chmod)} {shlex.quote(path)}" if chmod else ""
    return (f"mkdir -p {shlex.quote(str(PurePosixPath(path).parent))} && cat > {shlex.quote(path)} "
            f"<<'{delimiter}'{mode}\n{content}{delimiter}\n")
