"""Recorded replies: the agent model's replies read back from its trajectories, an edited Tool Use parser run on
them beside the parent's (each in a confined worker), and the LLM editor refused an edit that breaks a read
reply or, for a direction about parsing, reads none of the refused ones."""

from __future__ import annotations

import json

import pytest
from editor_helpers import FENCE, KEY_ENV, LANE_KEY_ENV, llm, request, tool_use_run

from modularrsi.evolve.editor import EditRequest, LLMEditor
from modularrsi.evolve.history import History
from modularrsi.evolve.reply_cases import (
    RecordedReply,
    about_parsing,
    check_parse,
    function_of,
    recorded_replies,
    replies_text,
)
from modularrsi.harness import BASELINE
from modularrsi.harness.library import load_generation
from modularrsi.harness.protocols import Action, Message, Reply
from modularrsi.harness.trajectory import TrajectoryRecorder
from modularrsi.models.base import Completion
from modularrsi.offline.fake_server import FakeOpenAIServer

BACKSLASH = "\\"
#: ``find -exec ... \;`` inside a JSON string: an invalid escape, so Terminus-2's parser refuses the reply.
REFUSED = ('{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "find . -name *.tmp -exec rm {} '
           + BACKSLASH + ';\\n", "duration": 1}], "task_complete": false}')
READ = '{"analysis": "a", "plan": "p", "commands": [{"keystrokes": "ls\\n", "duration": 1}], "task_complete": false}'
CORE = load_generation(BASELINE).default_active()["tool_use"][0]
KEY = f"tool_use/{CORE}"
SOURCE = (BASELINE / "modules" / "tool_use" / f"{CORE}.py").read_text()
PARSE_LINE = "    result = TerminusJSONPlainParser().parse_response(text)\n"
#: The parser with the invalid escape repaired first (chr(92) is a backslash).
REPAIRED = SOURCE.replace(PARSE_LINE, '    text = text.replace(chr(92) + ";", chr(92) * 2 + ";")\n' + PARSE_LINE)
#: The same behaviour in other code: nothing the runs recorded is read differently.
INERT = SOURCE.replace('cap = ctx.params["max_duration_sec"]', 'cap = int(ctx.params["max_duration_sec"])')
RAISES = SOURCE.replace(PARSE_LINE, '    raise ValueError("no")\n' + PARSE_LINE)


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-dummy-weak")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def replies() -> list[RecordedReply]:
    return [RecordedReply(text=REFUSED, error="Invalid JSON: Invalid \\escape"), RecordedReply(text=READ)]


def test_replies_are_read_back_from_a_trajectory_as_the_recorder_writes_it(tmp_path):
    trial = tmp_path / "trial"
    (trial / "agent").mkdir(parents=True)
    recorder = TrajectoryRecorder(trial / "agent" / "trajectory.json", "s", "modular", "0", "openai/m", "gen_0", {})
    recorder.user(Message("user", "the task", "initial_prompt"))
    feedback = Message("user", "fix it", "parse_error_feedback")
    for turn, reply in enumerate([Reply(raw=REFUSED, error="Invalid \\escape"), Reply(raw=REFUSED, error="again"),
                                  Reply(raw=READ, actions=(Action("ls\n", 1),)), Reply(raw="x" * 500, error="e")], 1):
        recorder.turn(turn, "openai/m", Message("user", "p", "observation"), reply, feedback, Completion(""))
    recorder.save()
    first = RecordedReply(text=REFUSED, error="Invalid \\escape")
    # refused ones first; each text once (the second refusal of REFUSED, the second trial); the long one left out
    assert recorded_replies([trial, trial], refused=6, read=6, max_chars=200) == [first, RecordedReply(text=READ)]
    assert recorded_replies([trial], refused=0, read=6) == [RecordedReply(text=READ)]
    assert recorded_replies([tmp_path / "missing"]) == []


async def test_an_edited_parser_is_run_beside_the_parent_on_the_recorded_replies(tmp_path):
    parent = load_generation(BASELINE).functions[KEY]
    repaired = await check_parse(parent, function_of(KEY, REPAIRED, tmp_path / "a"), replies())
    assert (repaired.fixed, repaired.still, repaired.broken) == (1, [], [])
    assert repaired.refusal(demand_fix=True) == ""
    inert = await check_parse(parent, function_of(KEY, INERT, tmp_path / "b"), replies())
    assert inert.fixed == 0 and len(inert.still) == 1 and not inert.broken
    assert inert.refusal(demand_fix=False) == ""
    assert inert.refusal(demand_fix=True).startswith("your parse still refuses all 1 replies the runs recorded")
    raises = await check_parse(parent, function_of(KEY, RAISES, tmp_path / "c"), replies())
    assert len(raises.broken) == 1 and "parse failed" in raises.broken[0][2]
    assert "reads 1 recorded reply(ies) differently" in raises.refusal(demand_fix=False)
    assert "read as commands ['ls\\n']" in raises.refusal(demand_fix=False)


async def test_the_guided_editor_writes_a_repair_in_front_of_the_parser_until_it_reads_a_refused_reply(tmp_path):
    """For a parsing direction with refused replies the guided editor is asked for one function, repair_reply(text),
    which the harness puts in front of the parent's parse. A small model's usual answers - the core file sent back
    whole, a repair that repairs nothing (twice), a repair that returns the parsed object - go back with the reason,
    each retry seeing only the task, its last answer and the refusal; the repair that reads the refused reply goes
    on to the description."""
    direction = request().direction.model_copy(update={"module": "tool_use", "mechanism": "parse-repair"})
    assert about_parsing(direction)
    edit = EditRequest(direction=direction, parent_dir=BASELINE, modules=["tool_use"], replies=replies())
    description = ("Agents lose turns to refused replies because the harness parser rejects invalid escapes; this "
                   "change repairs the escape before parsing, so that such replies run as commands.")
    nothing = "def repair_reply(text):\n    return text\n"
    parsed = "import json\n\ndef repair_reply(text):\n    return json.loads(text)\n"
    repair = 'import re\n\ndef repair_reply(text):\n    return re.sub(r"\\\\;", r"\\\\\\\\;", text)\n'
    turns = [*(f"{FENCE}python\n{code}{FENCE}" for code in (INERT, nothing, nothing, parsed, repair)), description]
    with FakeOpenAIServer(turns) as server:
        proposal = await LLMEditor(llm(server), max_turns=6, form="guided").edit(edit, tmp_path / "staging")
    assert proposal.description == description and f"modules/{KEY}.py" in proposal.changed_files
    staged = (tmp_path / "staging" / "modules" / f"{KEY}.py").read_text()
    assert "def parse_before_repair_reply(text, ctx):" in staged and "import re\n" in staged
    assert staged.rstrip().endswith("return parse_before_repair_reply(text, ctx)")
    task = server.requests[0]["messages"][1]["content"]
    assert "that the current parser refused" in task and "The parser refused it: Invalid JSON" in task
    assert "find . -name *.tmp -exec rm {} " + BACKSLASH + ";" in task
    assert "The function yours runs before:" in task and "def execute" not in task  # not the whole file
    assert task.endswith("Answer with the function alone in one ```python block; you will then be asked for a "
                         "one-sentence description.") and "def repair_reply(text):" in task
    told = [[m["content"] for m in sent["messages"]] for sent in server.requests]
    # each turn: the task, the last answer and what it was told - once it sent an answer again, the task alone
    assert [len(t) for t in told] == [2, 4, 4, 2, 2, 4]
    assert told[1][3] == ("Refused: the block must define def repair_reply(text): with one argument. Send def "
                          "repair_reply(text): again, fixed, alone in one ```python block.")
    assert told[2][3].startswith("Refused: your parse still refuses all 1 replies")
    assert told[3][1].startswith(task) and told[3][1].endswith(". Write a different one.")
    assert "Earlier answers were refused, the last because your parse still refuses all 1" in told[3][1]
    assert "repair_reply must return the text (a str), repaired" in told[4][1]
    assert told[5][3].startswith("Now describe your change")
    # from the answer sent again on, the model samples hotter than its role's temperature (here: none set)
    assert [sent.get("temperature") for sent in server.requests] == [None, None, None, 0.75, 0.75, 0.75]
    transcript = (tmp_path / "editor.jsonl").read_text().splitlines()
    assert len(transcript) == 2 + 6 + 5  # the transcript keeps every answer and all that was said to each
    assert "That is the answer you sent last, refused the same way: write a different one." in transcript[7]


async def test_the_tool_loop_editor_is_refused_done_with_a_parser_that_breaks_a_read_reply(tmp_path):
    direction = request().direction.model_copy(update={"module": "tool_use", "mechanism": "command-timeout"})
    edit = EditRequest(direction=direction, parent_dir=BASELINE, modules=["tool_use"], replies=replies())
    description = ("Agents wait too long because the harness caps no wait below a minute; this change raises an "
                   "error first, so that the loop is told at once.")
    turns = [json.dumps({"tool": "write", "path": f"{KEY}.py", "content": RAISES}),
             json.dumps({"tool": "done", "description": description}),
             json.dumps({"tool": "write", "path": f"{KEY}.py", "content": INERT}),
             json.dumps({"tool": "done", "description": description})]
    with FakeOpenAIServer(turns) as server:
        proposal = await LLMEditor(llm(server), max_turns=4).edit(edit, tmp_path / "staging")
    assert f"modules/{KEY}.py" in proposal.changed_files  # not about parsing: an inert parse is no refusal
    results = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"][1:]
    assert results[1].startswith("Refused: your parse reads 1 recorded reply(ies) differently")


def test_a_tool_use_lane_shows_its_editor_the_replies_its_trials_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(LANE_KEY_ENV, "sk-lane")
    run = tool_use_run(tmp_path / "run")
    change = History(run / "history.jsonl").changes["tool_use/e0/d0-0"]
    assert change.outcome == "editor_failed"
    talk = run / "lanes" / "tool_use" / "epoch_0" / "gates" / "0-0" / "editor.jsonl"
    task = [json.loads(line) for line in talk.read_text().splitlines()][1]["content"]
    assert "The parser refused it: Invalid JSON: Invalid control character" in task and '"plan": "look\nfirst"' in task


def test_an_editor_is_shown_where_in_a_refused_reply_the_parsers_error_points():
    fenced = '```json\n{\n  "analysis": "a",\n  "plan": "The plan is to:\n1. Copy",\n  "commands": []\n}\n```'
    error = "Invalid JSON: Invalid control character at: line 3 column 27 (char 47) | Content preview: '{\\n  \"a'..."
    shown = replies_text([RecordedReply(text=fenced, error=error), RecordedReply(text=READ)])
    assert shown.splitlines()[2:5] == ["Reply 1, the whole text as the parser got it:", "~~~~", "```json"]
    assert ("The parser refused it: Invalid JSON: Invalid control character at: line 3 column 27 (char 47); it points "
            "at the end of the line '  \"plan\": \"The plan is to:' (line 4 of the reply). (That message is the "
            "parser's; it is not in the reply.)") in shown  # counted from the JSON's "{", without the preview
    assert "Reply 2" not in shown  # read replies are not shown
    assert replies_text([RecordedReply(text=READ)]) == ""
