"""The sim editor's catalogue (real function files that the sim world reacts to) and its proposals."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from harbor.agents.terminus_2.terminus_json_plain_parser import TerminusJSONPlainParser
from runtime_helpers import kernel_with, reply, run
from testutil import REPO, SHIPPED_TASKS

from modularrsi.evolve.findings import Direction
from modularrsi.evolve.history import Brief
from modularrsi.evolve.proposal import tree_hashes
from modularrsi.harness import BASELINE
from modularrsi.harness.library import GenerationError, load_function, load_generation, write_generation
from modularrsi.harness.probe import Probe, probe
from modularrsi.harness.protocols import MODULES, Action, Message, Reply, TurnRecord
from modularrsi.offline.catalogue import CATALOGUE, REGRESSIONS, CatalogueError, for_module, source
from modularrsi.offline.sim.reading import load_task
from modularrsi.offline.sim_editor import BAD_KINDS, HACK_TARGETS, EditorError, SimEditor, choose_mechanism

ENTRIES = list(CATALOGUE.values())
TASK_DIR = REPO / "tasks" / "pool" / "crm-contacts-dedup-by-email"
BASE_ID = json.loads((BASELINE / "manifest.json").read_text())["id"]


def loaded(tmp_path: Path, name: str):
    entry = next(e for e in ENTRIES if e.name == name)
    path = tmp_path / entry.module / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source(name))
    return load_function(path)


def call(fn, name: str, *args, turns=(), instruction="Do the task.", model=None):
    """``fn``'s callable ``name`` run as the kernel runs it (in the confined runtime) on this loop state."""
    return probe(fn, name, *args, turns=list(turns), instruction=instruction, model=model)


def turn(i: int, keys: str) -> TurnRecord:
    return TurnRecord(i, "observation", Reply(raw="{}", actions=(Action(keys, 0.1),)))


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_every_template_is_a_valid_function_file_of_its_module(tmp_path, entry):
    fn = loaded(tmp_path, entry.name)
    assert (fn.module, fn.role) == (entry.module, entry.role)


def test_catalogue_mechanisms_are_generic():
    tasks = {p.name for p in SHIPPED_TASKS}
    for entry in CATALOGUE.values():
        text = source(entry.name)
        assert "/app/" not in text and not [t for t in tasks if t in text], entry.name
    for entry in ENTRIES:  # the editor's account: behaviour → mechanism → effect
        assert len(entry.rationale.split()) >= 20 and any(w in entry.rationale for w in ("because", "so that",
                                                                                         "since", "leads", "prevents"))
    with pytest.raises(CatalogueError, match="valid: .*evidence_check"):
        source("nope")


@pytest.mark.parametrize("tag", CATALOGUE)
def test_good_proposal_is_a_generation_that_changes_only_its_module(tmp_path, tag):
    entry, before = CATALOGUE[tag], tree_hashes(BASELINE)
    p = SimEditor(seed=0, bad_rate=0.0).propose(entry.module, tag, BASELINE, tmp_path / "stage")
    gen = load_generation(p.staging_dir)
    assert p.bad_kind is None and p.parent_id == BASE_ID and gen.manifest.parents == [BASE_ID]
    assert gen.id == p.generation_id and p.function == f"{entry.module}/{entry.name}"
    assert all(f == "manifest.json" or f.startswith(f"modules/{entry.module}/") for f in p.files_changed)
    headers = [line[4:] for line in p.diff.splitlines() if line.startswith(("+++ ", "--- "))]
    assert all(h in ("/dev/null", "a/manifest.json", "b/manifest.json") or f"/modules/{entry.module}/" in h
               for h in headers), headers
    base = load_generation(BASELINE).default_active()
    active = gen.default_active()
    assert {m: v for m, v in active.items() if m != entry.module} == {m: v for m, v in base.items()
                                                                      if m != entry.module}
    assert entry.name in active[entry.module]
    if entry.placement == "first":
        assert active[entry.module][0] == entry.name
    if entry.role == "core":
        assert len(active[entry.module]) == 1
    assert tree_hashes(BASELINE) == before


@pytest.mark.parametrize("kind", BAD_KINDS)
@pytest.mark.parametrize("tag", CATALOGUE)
def test_each_bad_kind_is_labelled_and_recognisable(tmp_path, tag, kind):
    entry = CATALOGUE[tag]
    p = SimEditor(seed=3).propose(entry.module, tag, BASELINE, tmp_path / "stage", force=kind)
    assert p.bad_kind == kind and kind not in p.diff  # labelled for tests, invisible to the gates
    modules = {f.split("/")[1] for f in p.files_changed if f.startswith("modules/")}
    added = "\n".join(line[1:] for line in p.diff.splitlines() if line.startswith("+") and not line.startswith("+++"))
    if kind == "syntax_error":
        with pytest.raises(GenerationError, match="syntax error"):
            load_generation(p.staging_dir)
        return
    load_generation(p.staging_dir)
    if kind == "scope_violation":
        assert entry.module in modules and len(modules) == 2
    elif kind == "task_specific_hack":
        assert modules == {entry.module}
        assert any(task in added and path in added and str(magic) in added for task, path, magic in HACK_TARGETS)
    else:
        bad = REGRESSIONS[entry.module]
        assert p.function == f"{entry.module}/{bad.name}" and modules == {entry.module}


def test_bad_patches_are_drawn_deterministically_per_seed_and_attempt(tmp_path):
    draws = [SimEditor(seed=7, bad_rate=0.5).draw("completion", "evidence_check", BASE_ID, a) for a in range(40)]
    assert draws == [SimEditor(seed=7, bad_rate=0.5).draw("completion", "evidence_check", BASE_ID, a)
                     for a in range(40)]
    assert set(draws) == {None, *BAD_KINDS}
    assert draws != [SimEditor(seed=8, bad_rate=0.5).draw("completion", "evidence_check", BASE_ID, a)
                     for a in range(40)]
    assert all(SimEditor(seed=7, bad_rate=0.0).draw("agent_loop", "loop_guard", BASE_ID, a) is None for a in range(20))
    attempt = draws.index("task_specific_hack")
    twice = [SimEditor(seed=7, bad_rate=0.5).propose("completion", "evidence_check", BASELINE, tmp_path / f"s{i}",
                                                     attempt=attempt) for i in range(2)]
    assert [p.bad_kind for p in twice] == ["task_specific_hack"] * 2
    assert twice[0].generation_id == twice[1].generation_id and twice[0].diff == twice[1].diff


def test_misdirected_or_repeated_proposals_are_refused(tmp_path):
    editor = SimEditor(seed=0, bad_rate=0.0)
    with pytest.raises(EditorError, match="belongs to observation, not context"):
        editor.propose("context", "trim_listing", BASELINE, tmp_path / "a")
    with pytest.raises(CatalogueError, match="unknown mechanism"):
        editor.propose("context", "nope", BASELINE, tmp_path / "a")
    editor.propose("observation", "trim_listing", BASELINE, tmp_path / "b")
    with pytest.raises(EditorError, match="same content"):
        editor.propose("observation", "trim_listing", tmp_path / "b", tmp_path / "c")


# --------------------------------------------------------------- what the sim world reacts to
async def test_evidence_check_asks_for_verification_at_most_max_asks_times(tmp_path):
    fn = loaded(tmp_path, "evidence_check")
    async with Probe(fn, turns=[turn(1, "python3 make.py\n")]) as episode:
        asks = [await episode.call("check", Reply(raw="", task_complete=True), "$ ") for _ in range(4)]
    assert all(asks[:2]) and asks[2:] == [None, None] and len(asks[0].encode()) < 2048
    verified = [turn(1, "python3 make.py\n"), turn(2, "cat out/report.csv | head\n")]
    async with Probe(fn, turns=verified) as episode:
        assert await episode.call("check", Reply(raw="", task_complete=True), "$ ") is None


def test_which_completion_checks_remind_the_sim_of_a_skipped_requirement(tmp_path):
    """What the sim reacts to is what a check says about the task: a recap of the requirements or the
    outputs' paths reminds it of the skipped step; a generic request for evidence does not."""
    task = load_task(TASK_DIR)
    said = {}
    for name in ("requirements_recap", "outputs_checklist", "evidence_check"):
        fn = loaded(tmp_path, name)
        claim = Reply(raw="", task_complete=True)
        said[name] = call(fn, "check", claim, "$ ", instruction=task.instruction)
    assert {n: task.reminded(task.easy, text) for n, text in said.items()} == {
        "requirements_recap": True, "outputs_checklist": True, "evidence_check": False}


async def test_agent_loop_interventions_say_what_the_sim_reads(tmp_path):
    task = load_task(TASK_DIR)
    notes = []
    async with Probe(loaded(tmp_path, "task_reminder"), instruction=task.instruction) as episode:
        for n in range(12):
            episode.state.turn = n
            notes.append(await episode.call("intervene"))
    assert [n for n, note in enumerate(notes) if note] == [4, 8] and task.restates_task(notes[4])
    async with Probe(loaded(tmp_path, "turn_counter"), instruction=task.instruction) as episode:
        episode.state.turn = 3
        assert not task.restates_task(await episode.call("intervene"))


def test_loop_guard_warns_on_repeated_batches_only(tmp_path):
    fn = loaded(tmp_path, "loop_guard")
    batches = ["make\n", "ls -la\n", "", "ls -la\n", "ls -la\n"]  # a blank wait in between is ignored
    warning = call(fn, "intervene", turns=[turn(i, keys) for i, keys in enumerate(batches)])
    assert warning and ("$ ls -la\n" + warning).count("ls -la") >= 2  # names the command beyond the echo
    assert call(fn, "intervene", turns=[turn(1, "ls -la\n"), turn(2, "make\n"), turn(3, "ls -la\n")]) is None


def test_observation_filters_shorten_long_output_or_leave_it(tmp_path):
    long = "\n".join(f"/usr/share/doc/pkg{i}/README" for i in range(400)) + "\nDONE\n$ "
    sizes = {name: len(call(loaded(tmp_path, name), "shape", long).encode())
             for name in ("trim_listing", "tail_window", "strip_ansi")}
    assert sizes["trim_listing"] < 2048 and sizes["tail_window"] <= 2100 and sizes["strip_ansi"] == len(long)
    coloured = "\x1b[31mred\x1b[0m\nbar 10%\rbar 100%\n"
    fn = loaded(tmp_path, "strip_ansi")
    assert call(fn, "shape", coloured) == "red\nbar 100%\n"


def test_quoted_feedback_shows_the_reply_back(tmp_path):
    fn = loaded(tmp_path, "quoted_feedback")
    cut = '{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "ls\\n", "duration": 0.1}], '
    reply = call(fn, "parse", cut)
    assert reply.error and cut[:40] in call(fn, "parse_error_feedback", reply)


def test_trim_listing_collapses_long_output_and_keeps_errors(tmp_path):
    fn = loaded(tmp_path, "trim_listing")
    lines = [f"/usr/share/doc/pkg{i}/README" for i in range(400)]
    lines[200] = "find: '/usr/share/doc/x': Permission denied"
    out = call(fn, "shape", "\n".join(lines + ["DONE-MARKER", "$ "]) + "\n" * 20)
    kept = out.splitlines()
    assert len(kept) <= 42 and "Permission denied" in out and kept[-2:] == ["DONE-MARKER", "$ "]
    assert "lines omitted" in out and len(out.encode()) < 2048
    short = "a\nb\n"
    assert call(fn, "shape", short) == short


def test_json_repair_recovers_only_replies_cut_after_their_commands(tmp_path):
    fn = loaded(tmp_path, "terminus_json_repair")
    full = json.dumps({"analysis": "a", "plan": "p", "commands": [{"keystrokes": "ls\n", "duration": 0.1}],
                       "task_complete": True})
    repaired = call(fn, "parse", full[:-4])
    assert repaired.error is None and repaired.actions == (Action("ls\n", 0.1),) and repaired.task_complete
    assert "AUTO-REPAIRED" in repaired.warning
    inside = call(fn, "parse", full[: full.index("ls") + 1])
    assert inside.error and not inside.actions
    assert call(fn, "parse", full[:40]).error  # how sim truncates: before any command
    commas = call(fn, "parse", '{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "ls\\n",},],}')
    assert commas.error is None and commas.actions[0].keystrokes == "ls\n"


def test_json_repair_escapes_raw_line_breaks_and_keeps_invalid_escapes_literally(tmp_path):
    """What a small model writes: a multi-line analysis, a shell's \\; inside a keystroke string."""
    fn = loaded(tmp_path, "terminus_json_repair")
    reply = ('{"analysis": "line one\nline two", "plan": "p", "commands": [{"keystrokes": '
             '"find . -name \'*.tmp\' -exec rm {} \\;\\n", "duration": 0.1}], "task_complete": false}')
    assert TerminusJSONPlainParser().parse_response(reply).error  # Terminus-2 refuses it
    repaired = call(fn, "parse", reply)
    assert repaired.error is None and repaired.analysis == "line one\nline two"
    assert repaired.actions == (Action("find . -name '*.tmp' -exec rm {} \\;\n", 0.1),)
    assert "escaped line breaks" in repaired.warning and "literal backslashes" in repaired.warning
    valid = json.dumps({"analysis": "a", "plan": "p", "commands": [{"keystrokes": "echo a\\\\b\n", "duration": 0.1}]})
    same = call(fn, "parse", valid)
    assert same.warning is None and same.actions[0].keystrokes == "echo a\\\\b\n"  # valid escapes untouched
    nested = '{"analysis": "a", "plan": "run "ls" first", "commands": []}'
    assert call(fn, "parse", nested).error  # an unescaped quote is not guessed at


class Window:
    """The model as ``before_query`` may ask it: a large window, a short history (and no summary asked)."""

    async def ask(self, messages, purpose):
        raise AssertionError(f"no model call expected ({purpose})")

    def context_limit(self):
        return 32_000

    def count_tokens(self, messages):
        return 100


def refused(i: int, text: str, error: str = "Invalid control character at: line 1 column 20") -> TurnRecord:
    return TurnRecord(i, "observation", Reply(raw=text, error=error))


def test_forget_refused_asks_the_message_again_without_the_refused_reply(tmp_path):
    fn = loaded(tmp_path, "forget_refused")
    asked, broken = Message("user", "Current terminal state: $", "observation"), '{"analysis": "a\nb'
    history = [Message("user", "The task.", "instruction"), Message("assistant", reply(["ls\n"]), "reply"),
               asked, Message("assistant", broken, "reply")]
    first = call(fn, "before_query", history, turns=[turn(1, "ls\n"), refused(2, broken)], model=Window())
    assert [m.content for m in first[:2]] == [m.content for m in history[:2]] and broken not in str(first)
    again = first[-1]
    assert again.role == "user" and again.purpose == "parse_error_feedback"
    assert again.content.startswith(asked.content) and "your last reply to the message above" in again.content
    assert "Invalid control character" in again.content
    # refused again: one note, counting both (so the request differs from the last, and the model is asked)
    second = call(fn, "before_query", first + [Message("assistant", broken, "reply")],
                  turns=[turn(1, "ls\n"), refused(2, broken), refused(3, broken)], model=Window())
    assert second[-1].content.count("(Not run:") == 1 and "your last 2 replies" in second[-1].content
    assert second[-1].content.startswith(asked.content)
    # a read reply, or a refused one no longer last in the history: the history is kept
    assert call(fn, "before_query", history[:2], turns=[turn(1, "ls\n")], model=Window()) is None
    assert call(fn, "before_query", history + [asked], turns=[refused(2, broken)], model=Window()) is None


def test_forget_refused_in_a_real_episode_never_shows_the_model_its_refused_reply(tmp_path, task_factory):
    broken = '{"analysis": "one\ntwo", "plan": "p", "commands": [], "task_complete": false}'
    replies = [broken, broken, reply(["ls\n"]), reply(done=True), reply(done=True)]
    runs = {}
    for name, extra in (("gen_0", ()), ("forget_refused", (loaded(tmp_path, "forget_refused"),))):
        kernel = kernel_with(tmp_path / name, task_factory(), {}, replies=list(replies), loaded=extra)
        runs[name] = (kernel, asyncio.run(run(kernel)))
    kernel, ending = runs["forget_refused"]
    calls = kernel.model._model.calls
    assert ending.reason == "completed" and kernel.terminal.keys == ["ls\n"]
    assert all(broken not in m.content for c in calls for m in c)
    assert calls[1][-1].content.endswith("Answer it again with one valid JSON object.)")
    assert "your last 2 replies" in calls[2][-1].content and len(calls[2]) == len(calls[0]) == 1
    edits = [s.extra["context_management"]["type"] for s in kernel.recorder.steps if s.source == "system"]
    assert edits == ["edit", "edit"]  # recorded as what it is: no summary, so no compaction either
    gen0 = runs["gen_0"][0].model._model.calls  # the baseline shows it, with the parser's feedback
    assert gen0[1][-2].content == broken and gen0[1][-1].content.startswith("Previous response had parsing errors")


TOGETHER = ("evidence_check", "requirements_recap", "loop_guard", "task_reminder", "trim_listing",
            "rolling_compaction", "json_repair")
TOGETHER_NAMES = [CATALOGUE[t].name for t in TOGETHER]


def test_mechanisms_of_every_module_run_together_in_a_real_episode(tmp_path):
    """gen_0 + a mechanism or two per module (compaction made to trigger early) on a real task with sim:
    each acts."""
    editor, parent = SimEditor(seed=0, bad_rate=0.0), BASELINE
    for i, (tag, entry) in enumerate((t, CATALOGUE[t]) for t in TOGETHER):
        editor.propose(entry.module, tag, parent, tmp_path / f"g{i}")
        parent = tmp_path / f"g{i}"
    gen = load_generation(parent)
    sources = {key: fn.path.read_text() for key, fn in gen.functions.items()}
    key = "context/rolling_compaction"
    sources[key] = sources[key].replace('"trigger_fraction": 0.35', '"trigger_fraction": 0.02')
    final = write_generation(tmp_path / "final", sources, gen.default_active(), [gen.id], "test")
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "modularrsi.cli", "run", "--tasks",
                           str(REPO / "tasks" / "pool" / "crm-contacts-dedup-by-email"), "-k", "2", "-n", "2",
                           "--generation", str(final.path), "--out", str(out)],
                          capture_output=True, text=True, timeout=600, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr[-3000:]
    called, compactions = set(), 0
    for trial in (out / "trials").iterdir():
        for line in (trial / "agent" / "module_trace.jsonl").read_text().splitlines():
            event = json.loads(line)
            called.add(event.get("function"))
        compactions += json.loads((trial / "agent" / "episode.json").read_text())["compactions"]
        assert json.loads((trial / "result.json").read_text())["verifier_result"] is not None
    assert set(TOGETHER_NAMES) <= called
    assert compactions >= 2


# --------------------------------------------------------------- the editor is led by the direction's text
def direction(module: str, summary: str, tag: str = "any-tag") -> Direction:
    return Direction(id="d1", module=module, mechanism=tag, summary=summary, tasks=["t1"], findings=[], vote=1.0,
                     raw_support=1)


def test_every_module_offers_at_least_three_mechanisms():
    assert all(len(for_module(m)) >= 3 for m in MODULES)
    assert set(REGRESSIONS) == set(MODULES) and all(r.tag in CATALOGUE for r in REGRESSIONS.values())


@pytest.mark.parametrize(("module", "summary", "chosen"), [
    ("completion", "The agent claimed completion with one of the instruction's requirements left undone; "
                   "restate the task's requirements when it claims.", "requirements_recap"),
    ("completion", "Agents stop before writing every output file the task asks for: list the paths the task "
                   "names and ask to show that each exists.", "outputs_checklist"),
    ("agent_loop", "The same command was repeated turn after turn; warn when batches repeat.", "loop_guard"),
    ("agent_loop", "Agents lose sight of the task in long episodes; put the instruction back in front of them.",
     "task_reminder"),
    ("tool_use", "Replies cut off at the end are rejected whole; recover the truncated JSON.", "json_repair"),
    ("tool_use", "The agent does not realise its reply was malformed; quote the reply back in the feedback.",
     "quoted_feedback"),
    ("context", "After parse-error feedback the model sends its refused reply again, word for word; take the "
                "refused reply out of the history.", "forget_refused"),
    ("context", "Agents lose the plan in long histories; summarise early and repeatedly.", "rolling_compaction"),
])
def test_the_sim_editor_writes_what_the_direction_asks_for(module, summary, chosen):
    assert choose_mechanism(direction(module, summary), BASELINE) == chosen
    assert choose_mechanism(direction(module, summary, tag=chosen.replace("_", "-")), BASELINE) == chosen


def test_the_sim_editor_skips_what_the_parent_has_and_what_was_rejected(tmp_path):
    ask = direction("agent_loop", "The same command was repeated turn after turn; warn when batches repeat.")
    SimEditor(seed=0, bad_rate=0.0).propose("agent_loop", "loop_guard", BASELINE, tmp_path / "g")
    after_loop_guard = choose_mechanism(ask, tmp_path / "g")
    rejected = [Brief(files=["modules/agent_loop/loop_guard.py"], outcome="rejected")]
    assert after_loop_guard == choose_mechanism(ask, BASELINE, history=rejected) != "loop_guard"
    tried = [Brief(files=[f"modules/agent_loop/{m.name}.py"], outcome="rejected") for m in for_module("agent_loop")]
    with pytest.raises(EditorError, match="nothing left to try for agent_loop"):
        choose_mechanism(ask, BASELINE, history=tried)
