"""Why a container build or compose command failed, in one readable line.

Harbor's podman and docker environments raise ``RuntimeError("Docker compose command failed for
environment E. Command: <the whole compose command line>. Return code: N. Stdout: <the engine's
output>. Stderr: … ")``. Its first line is the command line and the build's first step; the cause comes
last. :func:`summarise` keeps what a reader needs: the step that failed and the last error lines of
its output (podman's ``STEP i/N:``, docker's classic ``Step i/N :`` and BuildKit's ``[i/N]`` all read),
e.g. ``image build failed at STEP 3/7: RUN apt-get install foo=1.2: E: Version '1.2' for 'foo' was
not found (exit status 100)``.

Invariants: the summary is one line of at most ``limit`` characters, long lines clipped in the middle
(a cause is usually at a line's end); a message that is not Harbor's compose failure is its first line.
"""

from __future__ import annotations

import re

from modularrsi.util.dockerfile_text import heredoc_openers

_HARBOR = re.compile(r"^Docker compose command failed for environment \S*?\. Command: (?P<command>.*?)\. "
                     r"Return code: (?P<code>-?\d+)\. Stdout: (?P<out>.*)\. Stderr: (?P<err>.*?)\.?\s*$", re.S)
_STEPS = (re.compile(r"^STEP (\d+/\d+): (.*)$"),  # podman (buildah)
          re.compile(r"^Step (\d+/\d+) : (.*)$"),  # docker's classic builder
          re.compile(r"^\s*> \[(?:\S+ )?(\d+/\d+)\] (.*?):?$"),  # BuildKit's summary of the failed step
          re.compile(r"^#\d+ \[(?:\S+ )?(\d+/\d+)\] (.*)$"))  # BuildKit's progress
_BUILDKIT_PREFIX = re.compile(r"^#\d+ (?:\d+\.\d+ )?|^\d+\.\d+ ")
_ERROR = re.compile(r"^(E|W): |error|fail|not found|could not|cannot|can't|unable|no such|denied|refused|"
                    r"unknown|invalid|missing", re.I)
_NOISE = re.compile(r"^W: Some index files failed|^debconf: |^WARNING: Running pip as|^\[notice\]|^-+$|"
                    r"^Error: building at STEP|returned a non-zero code|did not complete successfully")
_EXIT = re.compile(r"(exit status \d+|exit code:? \d+|returned a non-zero code: \d+)")


def summarise(message: str, limit: int = 500) -> str:
    """One line saying why: Harbor's compose failure reduced to its step and cause (at most ``limit``
    characters), else the message's first line (at most 1,000: a one-line reason stays whole)."""
    match = _HARBOR.match(message.strip())
    if match is None:
        return clip((message.strip().splitlines() or [""])[0], max(limit, 1000))
    output = match["out"] + ("\n" + match["err"] if match["err"] not in ("None", "") else "")
    words = match["command"].split()
    last_file = max((i for i, w in enumerate(words) if w == "-f"), default=len(words) - 2)
    action = " ".join(words[last_file + 2:]) or "compose"
    return clip(reduce_output(output, action, int(match["code"])), limit)


def reduce_output(output: str, action: str = "build", code: int | None = None) -> str:
    """The failing step of an engine's build output and its last error lines (at most three)."""
    lines = [_BUILDKIT_PREFIX.sub("", line).rstrip() for line in output.splitlines()]
    step, start = _last_step(lines)
    tail = [line.strip() for line in lines[start:] if line.strip()]
    errors = list(dict.fromkeys(_clean(line) for line in tail if _ERROR.search(line) and not _NOISE.search(line)))
    if not errors:
        errors = [_clean(line) for line in tail if _building_at(line)] or [_clean(line) for line in tail[-2:]]
    exits = [m[1] for line in tail if (m := _EXIT.search(line))]
    exit_note = f" ({exits[-1]})" if exits else (f" (exit {code})" if code not in (None, 0) else "")
    what = "image build failed" if action.split()[:1] == ["build"] else f"compose {action} failed"
    where = f" at STEP {step[0]}: {clip(step[1], 160)}" if step else ""
    cause = " | ".join(clip(e, 240) for e in errors[-3:])
    return f"{what}{where}{': ' + cause if cause else ''}{exit_note}{_heredoc_hint(lines)}"


def _heredoc_hint(lines: list[str]) -> str:
    """A note when a build step opened a heredoc: builders without BuildKit's heredoc syntax (podman
    4.3's, docker's classic one) read its body as Dockerfile instructions."""
    steps = [m[2] for line in lines for pattern in _STEPS if (m := pattern.match(line))]
    if not any(heredoc_openers(step) for step in steps):
        return ""
    return "; the Dockerfile uses heredocs (<<EOF), which this engine's builder may not read"


def _last_step(lines: list[str]) -> tuple[tuple[str, str] | None, int]:
    """The last build step the output names, and the index of the line after it."""
    for index in range(len(lines) - 1, -1, -1):
        for pattern in _STEPS:
            if match := pattern.match(lines[index]):
                return (match[1], match[2].strip()), index + 1
    return None, 0


def _building_at(line: str) -> str:
    """podman's ``Error: building at STEP "…": <cause>``: the cause, unless it is only an exit status."""
    match = re.match(r'^Error: building at STEP ".*?": (.*)$', line)
    if match is None or re.fullmatch(r"while running runtime: exit status \d+", match[1]):
        return ""
    return match[1]


def _clean(line: str) -> str:
    return _building_at(line) or re.sub(r"^Error: ", "", line)


def clip(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters: its head and tail around an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    half = (limit - 3) // 2
    return f"{text[:half]} … {text[-(limit - 3 - half):]}"
