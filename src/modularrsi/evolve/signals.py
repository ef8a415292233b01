"""Deterministic facts per trajectory (signals) and the first divergence between two attempts of a task.

Reads only a trial's own files — ``agent/trajectory.json`` (ATIF), ``agent/episode.json``,
``agent/module_trace.jsonl`` — and never raises for missing or partial ones (an interrupted attempt):
what could be read is used and ``complete`` is False.

Definitions (all counted on the ATIF steps):

- *turn*: an agent step (one model reply). Its *batch* is the concatenation of the ``keystrokes`` of
  its ``bash_command`` tool calls; a turn whose reply did not parse has no batch.
- *wait*: a batch that is empty after stripping whitespace (only waiting for output). Waits are not
  commands: how many an attempt needs depends on timing, not on decisions.
- *claim*: a turn with a ``mark_task_complete`` tool call.
- *inspection*: a command batch that only reads (see :func:`modularrsi.evolve.commands.is_inspection`);
  every other command batch is *state-changing* (unknown programs and unparseable batches included — the
  conservative side).
- ``completion_without_evidence``: the number of claims before which no inspection ran after the last
  state-changing batch. A claim turn's own batch never counts as evidence (the model claimed before it
  saw that output) but does count as a state change.
- ``repeated_commands``: command batches identical (whitespace-normalised) to an earlier batch of the
  same attempt; ``max_repeat_run``: the longest run of consecutive identical command batches.
- ``resent_refusals``: replies the parser refused that repeat, word for word, the refused reply of the turn
  before (the model copying its own refused text from its context).
- ``observation_bytes``: UTF-8 size of the feedback the model read after each turn (its ATIF observation).
- ``compactions``: system steps recording a context compaction (trace ``compaction`` events when the
  trajectory is missing); ``interventions``: steps whose ``purpose`` contains ``intervention``.
"""

from __future__ import annotations

import json
from difflib import SequenceMatcher
from pathlib import Path
from statistics import mean
from typing import Any

from pydantic import BaseModel, ConfigDict

from modularrsi.evolve.commands import is_inspection

CLAIM_MARK = "<task_complete>"


class Signals(BaseModel):
    """Facts about one attempt; ``complete`` is False when a file was missing or partial (see ``notes``).
    Fields ending in ``_steps`` are ATIF ``step_id``s (evidence an analyst can cite)."""

    # extra="ignore": rows stored by an older version (with fields since removed) still load.
    model_config = ConfigDict(frozen=True, extra="ignore")

    complete: bool = False
    turns: int = 0
    parse_errors: int = 0
    commands: int = 0
    state_changes: int = 0
    completion_claims: int = 0
    completion_without_evidence: int = 0
    repeated_commands: int = 0
    max_repeat_run: int = 0
    resent_refusals: int = 0
    observation_bytes: tuple[int, ...] = ()
    max_observation_bytes: int = 0
    mean_observation_bytes: float = 0.0
    compactions: int = 0
    interventions: int = 0
    ending: str | None = None
    parse_error_steps: tuple[int, ...] = ()
    unevidenced_claim_steps: tuple[int, ...] = ()
    repeated_command_steps: tuple[int, ...] = ()
    resent_refusal_steps: tuple[int, ...] = ()
    intervention_steps: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()


class Turn(BaseModel):
    """One agent step: its ATIF step id, batch (None when the reply did not parse), claim, and the size
    of the feedback the model read after it."""

    model_config = ConfigDict(frozen=True)

    step_id: int
    keys: str | None = None
    claim: bool = False
    parse_error: bool = False
    refused: str | None = None  # the reply's text, when the parser refused it
    observation_bytes: int = 0

    @property
    def batch(self) -> str:
        """Whitespace-normalised keystrokes ("" for waits and unparsed replies)."""
        return " ".join((self.keys or "").split())

    @property
    def text(self) -> str:
        keys = self.keys or ""
        return f"{keys}{CLAIM_MARK}" if self.claim else keys


class Divergence(BaseModel):
    """First position where two attempts' decision sequences (:func:`decisions`) stop matching.

    ``index`` is the position in those sequences (the common prefix length); a side whose sequence
    ended there has step and keys None. Keys of a claiming turn end with ``CLAIM_MARK``."""

    model_config = ConfigDict(frozen=True)

    index: int
    pass_step: int | None
    fail_step: int | None
    pass_keys: str | None
    fail_keys: str | None


# ------------------------------------------------------------------ reading
def _read_object(path: Path, notes: list[str]) -> dict | None:
    """A JSON object file, or None with a note saying why not."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        notes.append(f"missing {path.name}")
        return None
    except (OSError, ValueError) as exc:
        notes.append(f"unreadable {path.name}: {type(exc).__name__}")
        return None
    if not isinstance(data, dict):
        notes.append(f"unreadable {path.name}: not a JSON object")
    return data if isinstance(data, dict) else None


def _read_trace(path: Path, notes: list[str]) -> list[dict]:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        notes.append(f"missing {path.name}")
        return []
    events = []
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            notes.append(f"partial line in {path.name}")
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def agent_dir(source: Path) -> Path:
    """The ``agent/`` directory of a trial directory (or the directory itself if it is one)."""
    return source / "agent" if (source / "agent").is_dir() else source


def load_steps(source: Path | dict) -> list[dict]:
    """ATIF steps of a trial directory, a trajectory file or an already loaded trajectory ([] if none)."""
    if not isinstance(source, dict):
        source = _read_object(source if source.is_file() else agent_dir(source) / "trajectory.json", []) or {}
    return [s for s in _list(source.get("steps")) if isinstance(s, dict)]


# ------------------------------------------------------------------ turns and shell commands
def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _dig(value: Any, *keys: str) -> Any:
    """``value[k1][k2]…`` through dicts only; None where the shape is not as expected."""
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _step_id(step: dict) -> int:
    return step["step_id"] if isinstance(step.get("step_id"), int) else 0


def _turn(step: dict) -> Turn:
    calls = [c for c in _list(step.get("tool_calls")) if isinstance(c, dict)]
    bash = [str(c["arguments"].get("keystrokes", "")) for c in calls
            if c.get("function_name") == "bash_command" and isinstance(c.get("arguments"), dict)]
    claim = any(c.get("function_name") == "mark_task_complete" for c in calls)
    observation = step.get("observation") if isinstance(step.get("observation"), dict) else {}
    size = sum(len(str(r.get("content") or "").encode()) for r in _list(observation.get("results"))
               if isinstance(r, dict))
    refused = bool(_dig(step, "extra", "parse_error"))
    return Turn(step_id=_step_id(step), keys="".join(bash) if bash or claim else None, claim=claim,
                parse_error=refused, refused=str(step.get("message") or "") if refused else None,
                observation_bytes=size)


def turns_of(steps: list[dict]) -> list[Turn]:
    """The agent steps of a trajectory as turns, in order."""
    return [_turn(s) for s in steps if s.get("source") == "agent"]


# ------------------------------------------------------------------ signals
def _unevidenced_claims(turns: list[Turn]) -> list[int]:
    steps, evidenced = [], False
    for turn in turns:
        if turn.batch:
            if not is_inspection(turn.keys or ""):
                evidenced = False
            elif not turn.claim:
                evidenced = True
        if turn.claim and not evidenced:
            steps.append(turn.step_id)
    return steps


def _repeats(turns: list[Turn]) -> tuple[list[int], int]:
    """Step ids of command batches seen earlier in the attempt, and the longest run of identical ones."""
    seen: set[str] = set()
    repeated, run, longest, previous = [], 0, 0, None
    for turn in (t for t in turns if t.batch):
        if turn.batch in seen:
            repeated.append(turn.step_id)
        seen.add(turn.batch)
        run = run + 1 if turn.batch == previous else 1
        longest, previous = max(longest, run), turn.batch
    return repeated, longest


def _resent(turns: list[Turn]) -> list[int]:
    """Step ids of refused replies identical to the refused reply of the turn before."""
    return [b.step_id for a, b in zip(turns, turns[1:], strict=False) if a.refused and b.refused == a.refused]


def _ending(episode: Any, trajectory: Any, trace: list[dict]) -> str | None:
    if isinstance(episode, dict) and episode.get("ending"):
        return str(episode["ending"])
    reason = _dig(trajectory, "final_metrics", "extra", "ending", "reason")
    if reason:
        return str(reason)
    end = next((e for e in reversed(trace) if e.get("event") == "end"), None)
    return str(end["reason"]) if end and end.get("reason") else None


def _compactions(steps: list[dict], trace: list[dict], have_trajectory: bool) -> int:
    if not have_trajectory:
        return sum(e.get("event") == "compaction" for e in trace)
    return sum(_dig(s, "extra", "context_management", "type") == "compaction"
               for s in steps if s.get("source") == "system")


def signals_of(trial_dir: Path) -> Signals:
    """Signals of one trial directory (or its ``agent/`` directory); never raises for missing files."""
    base, notes = agent_dir(Path(trial_dir)), []
    trajectory = _read_object(base / "trajectory.json", notes)
    episode = _read_object(base / "episode.json", notes)
    trace = _read_trace(base / "module_trace.jsonl", notes)
    steps = load_steps(trajectory) if trajectory is not None else []
    if trajectory is not None and not isinstance(trajectory.get("final_metrics"), dict):
        notes.append("trajectory has no final_metrics (the episode did not finish)")
    turns = turns_of(steps)
    repeated, longest = _repeats(turns)
    sizes = [t.observation_bytes for t in turns]
    interventions = [_step_id(s) for s in steps if "intervention" in str(_dig(s, "extra", "purpose"))]
    unevidenced = _unevidenced_claims(turns)
    resent = _resent(turns)
    traced_turns = max((e["turn"] for e in trace if isinstance(e.get("turn"), int)), default=0)
    return Signals(
        complete=not notes, turns=len(turns) if steps else traced_turns,
        parse_errors=sum(t.parse_error for t in turns), commands=sum(bool(t.batch) for t in turns),
        state_changes=sum(bool(t.batch) and not is_inspection(t.keys or "") for t in turns),
        completion_claims=sum(t.claim for t in turns), completion_without_evidence=len(unevidenced),
        repeated_commands=len(repeated), max_repeat_run=longest, resent_refusals=len(resent),
        observation_bytes=tuple(sizes),
        max_observation_bytes=max(sizes, default=0), mean_observation_bytes=round(mean(sizes), 1) if sizes else 0.0,
        compactions=_compactions(steps, trace, trajectory is not None), interventions=len(interventions),
        ending=_ending(episode, trajectory, trace), parse_error_steps=tuple(t.step_id for t in turns if t.parse_error),
        unevidenced_claim_steps=tuple(unevidenced), repeated_command_steps=tuple(repeated),
        resent_refusal_steps=tuple(resent),
        intervention_steps=tuple(interventions), notes=tuple(notes))


# ------------------------------------------------------------------ divergence
def _same(a: Turn, b: Turn, similarity: float) -> bool:
    if a.claim != b.claim:
        return False
    if a.batch == b.batch:
        return True
    matcher = SequenceMatcher(None, a.batch, b.batch, autojunk=False)
    return min(matcher.real_quick_ratio(), matcher.quick_ratio()) >= similarity and matcher.ratio() >= similarity


def decisions(source: Path | dict) -> list[Turn]:
    """The turns that decided something — command batches and claims — in order (waits and unparsed
    replies skipped)."""
    return [t for t in turns_of(load_steps(source)) if t.claim or t.batch]


def first_divergence(pass_traj: Path | dict, fail_traj: Path | dict, similarity: float = 0.9) -> Divergence | None:
    """Where a passing and a failing attempt of the same task first act differently; None if never.

    Each side is a trial directory, a ``trajectory.json`` or a loaded ATIF dict. Two decisions match
    when both claim or both do not, and their whitespace-normalised batches are equal or at least
    ``similarity`` alike (difflib ratio) — tolerating volatile tokens such as markers, temporary names
    or timestamps inside an otherwise identical command."""
    ours, theirs = decisions(pass_traj), decisions(fail_traj)
    index = 0
    while index < min(len(ours), len(theirs)) and _same(ours[index], theirs[index], similarity):
        index += 1
    if index == len(ours) == len(theirs):
        return None
    p = ours[index] if index < len(ours) else None
    f = theirs[index] if index < len(theirs) else None
    return Divergence(index=index, pass_step=p.step_id if p else None, fail_step=f.step_id if f else None,
                      pass_keys=p.text if p else None, fail_keys=f.text if f else None)
