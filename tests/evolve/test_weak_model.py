"""A weak model in every evolution role, over real HTTP (LiteLLM → the fake OpenAI-compatible server): every
bad answer ends as a recorded outcome of its step (invalid analysis, dropped finding, editor failure, review
rejection) with its reason — never a crash, never a silent pass."""

from __future__ import annotations

import json

import jsonschema
import pytest
from editor_helpers import DESCRIPTION, GOOD_FN, KEY_ENV, llm, request

from modularrsi.evolve.aggregate import AggregateConfig, aggregate
from modularrsi.evolve.analysis import LLMAnalyst, analyse
from modularrsi.evolve.editor import ACTION_SCHEMA, EditorError, LLMEditor
from modularrsi.evolve.findings import AttemptEvidence, Finding, TaskEvidence
from modularrsi.evolve.gates.review import ReviewGate
from modularrsi.evolve.proposal import Proposal
from modularrsi.evolve.source_repair import escape_raw_newlines, parses, repaired
from modularrsi.harness import BASELINE
from modularrsi.harness.library import load_generation
from modularrsi.offline.fake_server import FakeOpenAIServer

HARNESS = {"concerns": "harness", "is_culprit": True, "locked_module": "tool_use", "would_change_outcome": True,
           "fixable_now": True, "divergence": "9 replies refused for an invalid JSON escape; no command ran",
           "suggested_change": "repair invalid JSON escapes in a reply before refusing it as a parse error",
           "mechanism": "parse-repair", "evidence_steps": [1, 2]}
@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-dummy-weak")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def evidence(task: str = "inventory-report") -> TaskEvidence:
    attempts = [AttemptEvidence(index=0, passed=True, steps=4, signals={"parse_errors": 0}),
                AttemptEvidence(index=1, passed=False, steps=9, signals={"parse_errors": 9, "parse_error_steps": [1]})]
    return TaskEvidence(task=task, bucket="mixed", attempts=attempts, pass_keystrokes=["ls\n", "cat a\n"],
                        fail_keystrokes=["", ""], divergence_step=0, instruction="Write a report.")


async def finding_for(*turns) -> tuple[Finding, FakeOpenAIServer]:
    with FakeOpenAIServer(list(turns)) as server:
        finding = await analyse(evidence(), "tool_use", LLMAnalyst(llm(server)))
    return finding, server


# ------------------------------------------------------------------------------------------------ analyst
@pytest.mark.parametrize("turn, reason", [
    ("The harness is fine, I think.", "no JSON object"),
    ("", "empty reply"),
    ({"content": '{"concerns": "harness", "is_culprit": tr', "finish_reason": "length"}, "cut off at the token"),
    (json.dumps({**HARNESS, "is_culprit": ["yes", "no"]}), "is_culprit must be true or false"),
])
async def test_unusable_analyses_are_repaired_once_then_recorded_as_invalid(turn, reason):
    finding, server = await finding_for(turn, turn)
    assert finding.parse_error and reason in finding.parse_error
    assert not finding.is_culprit and not finding.suggested_change
    assert len(server.requests) == 2 and server.requests[0]["response_format"]["type"] == "json_schema"
    assert reason in server.requests[1]["messages"][-1]["content"]  # the repair names what was wrong


async def test_a_repaired_analysis_counts():
    finding, _ = await finding_for("Here you go: {oops", json.dumps(HARNESS))
    assert finding.is_culprit and finding.parse_error is None and finding.mechanism == "parse-repair"


async def test_task_logic_is_dropped_with_its_reason():
    task_logic = {**HARNESS, "concerns": "task_logic", "divergence": "the script does not remove duplicate contacts",
                  "suggested_change": "remove duplicate contacts before writing the file"}
    dropped, _ = await finding_for(json.dumps(task_logic))
    assert not dropped.is_culprit and not dropped.suggested_change
    assert dropped.dropped.startswith("task logic") and "duplicate contacts" in dropped.dropped
    unlabelled = {**HARNESS, "suggested_change": "deduplicate the contacts by lower-cased e-mail address"}
    guessed, _ = await finding_for(json.dumps(unlabelled))
    assert not guessed.is_culprit and "names no harness mechanism" in guessed.dropped


async def test_a_harness_label_on_the_tasks_own_words_is_dropped():
    """Seen from the real model: mechanism parse-repair, but the change restates the task's instruction."""
    instruction = ("Sales exported our CRM contacts and the file is full of duplicates: the same person was entered "
                   "several times, with slightly different data. Two rows are the same contact when their email "
                   "addresses are equal.")
    copied = {**HARNESS, "suggested_change": "The tool_use module should be updated to correctly parse the input "
              "file and identify duplicate contacts based on email addresses, where the same person is entered "
              "multiple times with slightly different data each time."}
    with FakeOpenAIServer([json.dumps(copied)]) as server:
        task = evidence().model_copy(update={"instruction": instruction})
        finding = await analyse(task, "tool_use", LLMAnalyst(llm(server)))
    assert not finding.is_culprit and not finding.suggested_change
    assert "repeats the task's own words (addresses, contacts, email" in finding.dropped


def test_a_direction_is_built_from_harness_level_content_never_one_tasks_fix():
    def culprit(task, change, dropped=None):
        return Finding(task=task, lens="tool_use", kind="contrastive", is_culprit=dropped is None,
                       locked_module="tool_use" if dropped is None else None, mechanism="parse-repair",
                       suggested_change=change if dropped is None else "", dropped=dropped, pass_count=1, attempts=3)

    findings = [culprit("csv-merge-tool", "repair invalid escapes in csv-merge-tool replies before refusing them"),
                culprit("log-rotate-job", "retry the parse after fixing invalid JSON escapes"),
                culprit("crm-dedup", "", dropped="task logic, not harness behaviour: dedup contacts")]
    [direction] = aggregate(findings, AggregateConfig(min_support=1, min_vote=0)).directions
    assert direction.raw_support == 2 and "crm-dedup" not in direction.tasks
    assert "supported by 2 tasks" in direction.summary and "retry the parse" in direction.summary
    assert "csv-merge-tool" not in direction.summary and "[task] replies" in direction.summary


# ------------------------------------------------------------------------------------------------- editor
async def test_a_refused_edit_goes_back_to_the_editor_and_is_repaired(tmp_path):
    with_os = GOOD_FN.replace('"""Asks for evidence once."""\n', '"""Asks for evidence once."""\nimport os\n')
    active = [*load_generation(BASELINE).default_active()["completion"], "note_errors"]
    turns = [json.dumps({"tool": "write"}),                                    # misuse: no path
             json.dumps({"tool": "rewrite", "path": "completion/x.py"}),         # misuse: no such tool
             json.dumps({"tool": "activate", "module": "completion", "names": "note_errors"}),  # misuse: not a list
             json.dumps({"tool": "done", "description": "nothing yet"}),       # refused: no change
             json.dumps({"tool": "write", "path": "completion/note_errors.py", "content": with_os}),
             json.dumps({"tool": "activate", "module": "completion", "names": active}),
             json.dumps({"tool": "done", "description": DESCRIPTION}),               # refused: os
             json.dumps({"tool": "write", "path": "completion/note_errors.py", "content": GOOD_FN}),
             json.dumps({"tool": "done", "description": DESCRIPTION})]
    with FakeOpenAIServer(turns) as server:
        proposal = await LLMEditor(llm(server), max_turns=12).edit(request(), tmp_path / "staging")
    assert isinstance(proposal, Proposal) and "modules/completion/note_errors.py" in proposal.changed_files
    answers = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"][1:]
    assert "is not <module>/<name>.py" in answers[0] and "unknown tool 'rewrite'" in answers[1]
    assert "names must be a list" in answers[2] and "without changing anything" in answers[3]
    assert "forbidden import 'os'" in answers[6] and answers[6].startswith("Refused:")
    system = server.requests[0]["messages"][0]["content"]
    assert "ONLY these modules" in system and "modularrsi.harness.protocols" in system and "check" in system


async def test_every_editor_turn_asks_for_one_tool_call_by_json_schema_and_sees_the_modules_files(tmp_path):
    """A small local model decodes under the schema, so its reply is always a well-formed tool call; every tool
    the system prompt lists fits the schema and a reply missing a field does not. The system prompt gives each
    contract's signature and the shape of a function file; the first message shows the active files of the
    module it may change (and no other module's)."""
    calls = [{"tool": "list"}, {"tool": "read", "path": "completion/confirm_twice.py"},
             {"tool": "search", "pattern": "claim"}, {"tool": "write", "path": "completion/note_errors.py",
                                                      "content": GOOD_FN},
             {"tool": "edit", "path": "completion/note_errors.py", "old": "once", "new": "once more"},
             {"tool": "activate", "module": "completion",
              "names": [*load_generation(BASELINE).default_active()["completion"], "note_errors"]},
             {"tool": "done", "description": DESCRIPTION}]
    for call in calls:
        jsonschema.validate(call, ACTION_SCHEMA)
    for bad in ({"tool": "write", "path": "completion/x.py"}, {"tool": "rewrite"}, {"tool": "done", "why": "x"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, ACTION_SCHEMA)
    with FakeOpenAIServer([json.dumps(c) for c in calls]) as server:
        proposal = await LLMEditor(llm(server), max_turns=8).edit(request(), tmp_path / "staging")
    assert "modules/completion/note_errors.py" in proposal.changed_files
    assert len(server.requests) == len(calls)
    for sent in server.requests:
        assert sent["response_format"]["type"] == "json_schema"
        assert sent["response_format"]["json_schema"]["name"] == "editor_action"
        assert sent["response_format"]["json_schema"]["schema"] == ACTION_SCHEMA
    system = server.requests[0]["messages"][0]["content"]
    assert "completion additive: check(reply, output, ctx) -> str | None" in system and "(optional)" not in system
    assert 'MODULE = "completion"\nROLE = "additive"' in system and "def check(reply, output, ctx):" in system
    first = server.requests[0]["messages"][1]["content"]
    shown = (BASELINE / "modules" / "completion" / "confirm_twice.py").read_text().strip()
    assert "### completion/confirm_twice.py (active)" in first and shown in first
    assert "tool_use/" not in first and "terminus_json" not in first
    results = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"][1:]
    assert results[3].startswith("wrote completion/note_errors.py") and "in place of" not in results[3]


async def test_writing_over_an_existing_file_is_pointed_out(tmp_path):
    """A small model tends to copy the file it was shown over itself; the tool result says what that did."""
    shown = (BASELINE / "modules" / "completion" / "confirm_twice.py").read_text()
    turns = [json.dumps({"tool": "write", "path": "completion/confirm_twice.py", "content": shown + "\nSAME = 1\n"}),
             json.dumps({"tool": "done", "description": DESCRIPTION})]
    with FakeOpenAIServer(turns) as server:
        await LLMEditor(llm(server), max_turns=2).edit(request(), tmp_path / "staging")
    result = server.requests[-1]["messages"][-1]["content"]
    assert "in place of the existing file (a new mechanism goes in a new file)" in result


# The real 1.5B's write (seen in a probe): Python's \n escapes written as JSON's, so the file got line breaks
# inside a one-line f-string - "unterminated f-string literal" however often it is edited.
BROKEN_FN = GOOD_FN.replace(
    'return ctx.params["reminder"] if first else None',
    "return (f'Current terminal state:\n{claim}\n\nShow it.' if first else None)")
UNREPAIRABLE = GOOD_FN.replace("def check(ctx, claim):", "def check(ctx, claim)")


def test_line_breaks_inside_one_line_strings_are_read_as_escapes_and_nothing_else_is_touched():
    assert not parses(BROKEN_FN)
    fixed = repaired(BROKEN_FN)
    assert fixed is not None and parses(fixed)
    assert "f'Current terminal state:\\n{claim}\\n\\nShow it.'" in fixed
    assert fixed.replace("\\n", "\n") == BROKEN_FN  # the only difference
    assert repaired(GOOD_FN) is None  # a file that parses is left as it is
    assert repaired(UNREPAIRABLE) is None  # escaping does not make it parse: said, not guessed at
    kept = 'x = """two\nlines"""  # a \'quote in a comment\ny = "a\nb"\n'
    assert escape_raw_newlines(kept) == 'x = """two\nlines"""  # a \'quote in a comment\ny = "a\\nb"\n'
    assert escape_raw_newlines('s = "a\\\nb"\n') == 's = "a\\\nb"\n'  # a backslash-newline continues it


async def test_a_write_is_answered_with_its_syntax_and_a_json_escaped_string_is_repaired(tmp_path):
    active = [*load_generation(BASELINE).default_active()["completion"], "note_errors"]
    turns = [json.dumps({"tool": "write", "path": "completion/note_errors.py", "content": UNREPAIRABLE}),
             json.dumps({"tool": "write", "path": "completion/note_errors.py", "content": BROKEN_FN}),
             json.dumps({"tool": "activate", "module": "completion", "names": active}),
             json.dumps({"tool": "done", "description": DESCRIPTION})]
    with FakeOpenAIServer(turns) as server:
        proposal = await LLMEditor(llm(server), max_turns=4).edit(request(), tmp_path / "staging")
    results = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"][1:]
    assert results[0].endswith("it does not parse: line 8: expected ':' - fix it before done")
    assert "line breaks inside its one-line strings were read as \\n escapes" in results[1]
    written = (tmp_path / "staging" / "modules" / "completion" / "note_errors.py").read_text()
    assert "'Current terminal state:\\n{claim}" in written
    assert "modules/completion/note_errors.py" in proposal.changed_files


async def test_an_editor_that_never_calls_done_or_keeps_failing_is_an_editor_failure(tmp_path):
    with FakeOpenAIServer([json.dumps({"tool": "list"})] * 3) as server, \
            pytest.raises(EditorError, match="did not finish within 3 turns"):
        await LLMEditor(llm(server), max_turns=3).edit(request(), tmp_path / "a")
    bad = GOOD_FN + "\nopen('x')\n"
    turns = [json.dumps({"tool": "write", "path": "completion/note_errors.py", "content": bad}),
             json.dumps({"tool": "done", "description": "x"}), "no more JSON from me"]
    with FakeOpenAIServer(turns) as server, \
            pytest.raises(EditorError, match=r"did not finish within 3 turns \(last refusal: .*open"):
        await LLMEditor(llm(server), max_turns=3).edit(request(), tmp_path / "b")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


# ----------------------------------------------------------------------------------------------- reviewer
async def test_an_off_format_reviewer_is_a_rejection_with_its_reason(tmp_path):
    from modularrsi.harness.library import read_sources, write_generation

    base = load_generation(BASELINE)
    sources = read_sources(base)
    sources["completion/note_errors"] = GOOD_FN
    active = {**base.default_active(), "completion": [*base.default_active()["completion"], "note_errors"]}
    write_generation(tmp_path / "staging", sources, active, [base.id], "test")
    proposal = Proposal.build("completion", BASELINE, tmp_path / "staging", DESCRIPTION,
                              "ask for evidence", ["t1"])
    cut = {"content": '{"approve": tru', "finish_reason": "length"}
    with FakeOpenAIServer(["I like it!", cut]) as server:
        verdict = await ReviewGate(llm(server), ["t1"]).check(proposal)
    assert not verdict.passed and "unparseable after 2 tries" in verdict.reason and "cut off" in verdict.reason
    assert verdict.details["answer"].startswith('{"approve"') and len(server.requests) == 2
