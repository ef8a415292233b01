"""The guided editor's one function in a core file: the harness renames the wrapped callable and calls it on
what the model's function returns; what it cannot use is said in one line. Context's: a function that drops the
refused reply, in a real kernel episode, keeps the refused text from the model."""

from __future__ import annotations

import asyncio

import pytest
from editor_helpers import FENCE, KEY_ENV, llm
from runtime_helpers import kernel_with, reply, run

from modularrsi.evolve.edit_request import EditRequest
from modularrsi.evolve.editor import LLMEditor
from modularrsi.evolve.editor_hole import FORGET, REPAIR, copied, fill, hole_for
from modularrsi.evolve.findings import Direction
from modularrsi.evolve.reply_cases import RecordedReply
from modularrsi.harness import BASELINE
from modularrsi.harness.checks import declarations
from modularrsi.harness.library import check_contract, check_source, load_function
from modularrsi.offline.fake_server import FakeOpenAIServer

HOLE = REPAIR
CORE = BASELINE / "modules" / "tool_use" / "terminus_json.py"
CONTEXT = BASELINE / "modules" / "context" / "summarize_on_pressure.py"
DROP = ('def edit_history(history, error):\n    if error and history and history[-1].role == "assistant":\n'
        "        return history[:-1]\n    return history\n")


def test_the_function_goes_in_front_of_parse_and_the_file_still_meets_its_contract():
    filled = fill(HOLE, CORE.read_text(), "import json\nimport re\ndef repair_reply(text):\n    return text.strip()\n"
                  "def other():\n    return 1\n")
    tree = check_source(CORE, filled)
    check_contract(CORE, "tool_use", declarations(CORE, tree))  # raises if it did not
    assert "import json\nimport re\n\n\ndef repair_reply(text):\n    return text.strip()\n" in filled
    assert "def other" not in filled and "def parse_before_repair_reply(text, ctx):" in filled
    assert "Each text first goes through repair_reply (an edit's)." in filled
    with pytest.raises(ValueError, match="defines repair_reply already"):
        fill(HOLE, filled, "def repair_reply(text):\n    return text\n")


@pytest.mark.parametrize(("code", "reason"), [
    ("def repair_reply(text, extra):\n    return text\n", "must define def repair_reply\\(text\\): with one argument"),
    ("def fix(text):\n    return text\n", "must define def repair_reply"),
    ("def repair_reply(text)\n    return text\n", "your function does not parse: line 1"),
    ("async def repair_reply(text):\n    return text\n", "must be a plain def, not async def"),  # parse is not async
])
def test_what_cannot_be_used_is_said_in_one_line(code, reason):
    with pytest.raises(ValueError, match=reason):
        fill(HOLE, CORE.read_text(), code)


def test_context_s_function_goes_in_front_of_before_query_with_the_import_it_needs():
    filled = fill(FORGET, CONTEXT.read_text(), DROP)
    check_contract(CONTEXT, "context", declarations(CONTEXT, check_source(CONTEXT, filled)))
    assert "async def before_query_before_edit_history(history, ctx):" in filled
    assert "Each history first goes through edit_history (an edit's)." in filled
    bare = CONTEXT.read_text().replace("from modularrsi.harness.protocols import Message\n", "")
    assert fill(FORGET, bare, DROP).count("from modularrsi.harness.protocols import Message") == 1
    with pytest.raises(ValueError, match="must define def edit_history\\(history, error\\): with 2 arguments"):
        fill(FORGET, CONTEXT.read_text(), "def edit_history(history):\n    return history\n")


@pytest.mark.parametrize(("module", "mechanism", "summary", "wanted"), [
    ("context", "forget-refused", "refused replies are sent again word for word", FORGET),
    ("context", "retry", "handle refused replies more gracefully, possibly by retrying", FORGET),
    ("context", "summary", "summarise the history earlier", None),
    ("tool_use", "parse-repair", "replies the parser refused", None),  # no refused reply recorded
])
def test_the_hole_is_asked_for_a_direction_about_refused_replies(module, mechanism, summary, wanted):
    core = CONTEXT if module == "context" else CORE
    direction = Direction(id="d0", module=module, mechanism=mechanism, summary=summary, tasks=["t"], findings=[],
                          vote=1.0, raw_support=1)
    request = EditRequest(direction=direction, parent_dir=BASELINE, modules=[module])
    assert hole_for(request, core.read_text()) is wanted


@pytest.mark.parametrize("written", [DROP, DROP.replace("def edit_history", "async def edit_history")])
def test_a_history_without_the_refused_reply_asks_its_message_again_in_a_real_episode(tmp_path, task_factory,
                                                                                       written):
    """The scripted model's refused reply never reaches it again: each refusal re-asks the instruction (an async
    edit_history is awaited)."""
    path = tmp_path / "context" / "summarize_on_pressure.py"
    path.parent.mkdir()
    path.write_text(fill(FORGET, CONTEXT.read_text(), written))
    broken = '{"analysis": "one\ntwo", "plan": "p", "commands": [], "task_complete": false}'
    kernel = kernel_with(tmp_path / "k", task_factory(), {}, loaded=(load_function(path),),
                         replies=[broken, broken, reply(["ls\n"]), reply(done=True), reply(done=True)])
    ending = asyncio.run(run(kernel))
    calls = kernel.model._model.calls
    assert ending.reason == "completed" and kernel.terminal.keys == ["ls\n"]
    assert all(broken not in m.content for c in calls for m in c)
    assert [len(c) for c in calls[:3]] == [1, 1, 1] and calls[1] == calls[0] == calls[2]


async def test_the_guided_editor_asks_a_context_direction_for_edit_history_alone(tmp_path, monkeypatch):
    """Shown the refused replies of its trials, asked for edit_history alone; a function that matches the task's
    own texts, one that changes nothing (what the 1.5B wrote) and one that drops read replies too go back with the
    reason; the one that drops the refused reply alone goes on, awaited where it is an async def."""
    monkeypatch.setenv(KEY_ENV, "sk-dummy-weak")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    summary = "the agent sends its refused reply again word for word"
    direction = Direction(id="d0", module="context", mechanism="forget-refused", tasks=["t1"], findings=[],
                          summary=summary, vote=1.0, raw_support=1)
    refused = RecordedReply(text='{"analysis": "a\nb"}', error="Invalid JSON: Invalid control character at: line 1")
    description = ("Agents send a refused reply again because the harness keeps it in the history; this change "
                   "drops it and asks again, so that the model answers afresh.")
    asynchronous = DROP.replace("def edit_history", "async def edit_history")
    matching = f'def edit_history(history, error):\n    if error == "{summary}":\n        return history[:-1]\n' \
        "    return history\n"
    inert = "def edit_history(history, error):\n    return history\n"
    always = "def edit_history(history, error):\n    return history[:-1]\n"
    read = RecordedReply(text=reply(["ls\n"]))
    answers = [f"{FENCE}python\n{code}{FENCE}" for code in (matching, inert, always, asynchronous)]
    with FakeOpenAIServer([*answers, description]) as server:
        proposal = await LLMEditor(llm(server), max_turns=8, form="guided").edit(
            EditRequest(direction=direction, parent_dir=BASELINE, modules=["context"], replies=[refused, read]),
            tmp_path / "staging")
    assert proposal.description == description
    staged = (tmp_path / "staging" / "modules" / "context" / "summarize_on_pressure.py").read_text()
    assert asynchronous.rstrip() in staged and "edited = await edit_history(list(history), error)" in staged
    assert "new = await before_query_before_edit_history(edited, ctx)" in staged
    task = server.requests[0]["messages"][1]["content"]
    assert "The function yours runs before:" in task and "async def before_query(history, ctx):" in task
    assert "def on_overflow" not in task and "def edit_history(history, error):" in task
    assert "The parser refused it: Invalid JSON: Invalid control character" in task
    told = [sent["messages"][-1]["content"] for sent in server.requests[1:5]]
    assert told[0].startswith(f"Refused: your function matches text copied from the task ({summary!r}); it must "
                              "work for any history and any error, not for the examples")
    assert "Refused: it leaves a history whose last reply the parser refused as it was" in told[1]  # run, confined
    assert "Refused: it changes a history whose last reply the parser read." in told[2]
    assert told[3].startswith("Now describe your change")


def test_a_string_is_copied_when_the_task_holds_it_word_for_word():
    assert copied('x = "refused replies sent again"\ny = "short"', "3 refused replies sent again.") == \
        "refused replies sent again"
    assert copied('x = "short"\ny = "Invalid JSON: more"', "Invalid JSON: less") is None
    assert copied('x = "task_complete_at"', "the shown task_complete_at code", "task_complete_at = 1") is None
