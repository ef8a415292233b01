"""The LLM editor with a small model: the blocks format (code in fenced blocks after a JSON header, several
calls per message), the guided format (no tools: the file, then a description), and what is refused back to
it while it has turns left - a call sent again unchanged, a reply cut off at the output limit, an empty
write, a change of comments alone, a description the review would refuse outright."""

from __future__ import annotations

import json

import pytest
from editor_helpers import DESCRIPTION, FENCE, GOOD_FN, KEY_ENV, llm, request

from modularrsi.evolve.editor import EditorError, EditRequest, LLMEditor
from modularrsi.evolve.editor_prompt import read_actions
from modularrsi.harness import BASELINE
from modularrsi.harness.library import load_generation
from modularrsi.offline.fake_server import FakeOpenAIServer


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-dummy-weak")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


async def test_in_the_blocks_format_code_comes_in_fenced_blocks_after_the_call_and_no_schema_is_sent(tmp_path):
    """The local 1.5B, asked for a file inside a JSON string, wrote it up to the first '"' its code held; in
    the blocks format the code follows a one-line JSON header, quotes and all, and an edit takes two blocks."""
    quoted = GOOD_FN.replace('"Show the result with a command, then claim again."',
                             '"Run a command that shows the result, then say \\"done\\" again."')
    active = [*load_generation(BASELINE).default_active()["completion"], "note_errors"]
    turns = ['I will write the file.\n{"tool": "write", "path": "completion/note_errors.py"}\n'
             f"{FENCE}python\n{quoted}{FENCE}",
             f'{FENCE}json\n{{"tool": "edit", "path": "completion/note_errors.py"}}\n{FENCE}\n'
             f"{FENCE}python\n    first = not ctx.memo.get(\"asked\")\n{FENCE}\n"
             f"{FENCE}python\n    first = not ctx.memo.get(\"asked\", False)\n{FENCE}",
             json.dumps({"tool": "activate", "module": "completion", "names": active}),
             json.dumps({"tool": "done", "description": DESCRIPTION})]
    with FakeOpenAIServer(turns) as server:
        proposal = await LLMEditor(llm(server), max_turns=4, form="blocks").edit(request(), tmp_path / "staging")
    written = (tmp_path / "staging" / "modules" / "completion" / "note_errors.py").read_text()
    assert written == quoted.replace('ctx.memo.get("asked")', 'ctx.memo.get("asked", False)')
    assert "modules/completion/note_errors.py" in proposal.changed_files
    results = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"][1:]
    assert results[0] == f"wrote completion/note_errors.py ({len(quoted)} chars)"
    assert results[1] == "edited completion/note_errors.py"
    assert all("response_format" not in sent for sent in server.requests)
    system = server.requests[0]["messages"][0]["content"]
    example = f'{{"tool": "write", "path": "<module>/<name>.py"}}\n{FENCE}python\n<the whole file>\n{FENCE}'
    assert "never inside\nthe JSON" in system and example in system
    assert '"content": "<whole file>"' not in system


def test_calls_are_read_in_order_with_the_code_blocks_that_follow_each():
    call = {"tool": "write", "path": "completion/x.py", "content": "x = 1\n"}
    reply = json.dumps(call) + f"\n{FENCE}python\ny = 2\n{FENCE}"
    assert read_actions(reply, "json") == [call] == read_actions(reply, "blocks")  # the object's own content wins
    assert read_actions('{"tool": "write", "path": "completion/x.py"}', "blocks") == [
        {"tool": "write", "path": "completion/x.py"}]  # no block: the workspace refuses the empty write
    assert read_actions("no call here", "blocks") == [] == read_actions("no call here", "json")
    [edit] = read_actions(f'{{"tool": "edit", "path": "p"}}\n{FENCE}\na\n{FENCE}\n{FENCE}py\n{FENCE}', "blocks")
    assert (edit["old"], edit["new"]) == ("a", "")  # an empty second block deletes the text
    # the local 1.5B's habit: its whole plan in one message, JSON lines in a json fence, a call inside a python
    # fence, code holding braces and a call-like string
    code = 'def check(reply, output, ctx):\n    return {"tool": "list"}.get("x")\n'
    plan = (f'{FENCE}json\n{{"tool": "list"}}\n{{"tool": "read", "path": "completion/a.py"}}\n{FENCE}\n'
            f'{{"tool": "write", "path": "completion/b.py"}}   then the whole file:\n{FENCE}python\n{code}{FENCE}\n'
            f'{FENCE}python\n{{"tool": "activate", "module": "completion", "names": ["b"]}}\n{FENCE}\n'
            '{"tool": "done", "description": "d"}')
    actions = read_actions(plan, "blocks")
    assert [a["tool"] for a in actions] == ["list", "read", "write", "activate", "done"]
    assert actions[2]["content"] == code and "content" not in actions[3]
    assert [a["tool"] for a in read_actions(plan, "json")] == ["list"]  # the json format takes one call


async def test_several_calls_in_one_message_run_in_order_and_stop_at_the_first_that_fails(tmp_path):
    active = [*load_generation(BASELINE).default_active()["completion"], "note_errors"]
    write = f'{{"tool": "write", "path": "completion/note_errors.py"}}\n{FENCE}python\n{GOOD_FN}{FENCE}\n'
    turns = [write + '{"tool": "activate", "module": "completion", "names": ["nope"]}\n{"tool": "list"}\n'
             + json.dumps({"tool": "done", "description": DESCRIPTION}),
             json.dumps({"tool": "activate", "module": "completion", "names": active}) + "\n"
             + json.dumps({"tool": "done", "description": DESCRIPTION})]
    with FakeOpenAIServer(turns) as server:
        proposal = await LLMEditor(llm(server), max_turns=2, form="blocks").edit(request(), tmp_path / "staging")
    assert "modules/completion/note_errors.py" in proposal.changed_files
    [result] = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"][1:]
    assert result.splitlines() == [f"wrote completion/note_errors.py ({len(GOOD_FN)} chars)",
                                   "error: no function completion/nope", "(2 later call(s) in your message not run)"]


async def test_a_reply_cut_off_at_the_output_limit_is_a_turn_and_a_write_without_its_file_asks_for_it(tmp_path):
    """The 1.5B's first blocks-format edit dumped every call of the prompt into one message, hit its output
    limit, and the editor failed on the spot; then it ended every write at its JSON line, 16 times running."""
    active = [*load_generation(BASELINE).default_active()["completion"], "note_errors"]
    turns = [{"content": '{"tool": "list"}\n{"tool": "read", "path": "compl', "finish_reason": "length"},
             f'{FENCE}json\n{{"tool": "write", "path": "completion/note_errors.py"}}\n{FENCE}',
             f"{FENCE}python\n{GOOD_FN}{FENCE}",  # the file asked for
             '{"tool": "write", "path": "completion/other.py"}', GOOD_FN,  # a bare file is taken too
             json.dumps({"tool": "activate", "module": "completion", "names": active}),
             json.dumps({"tool": "done", "description": DESCRIPTION})]
    with FakeOpenAIServer(turns) as server:
        proposal = await LLMEditor(llm(server), max_turns=7, form="blocks").edit(request(), tmp_path / "staging")
    assert {"modules/completion/note_errors.py", "modules/completion/other.py"} <= set(proposal.changed_files)
    results = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"][1:]
    assert results[0] == ("Your message was cut off at the output limit and nothing in it was used: send fewer "
                          "calls per message.")
    assert results[1] == f"Now send the whole file completion/note_errors.py in one {FENCE}python block, nothing else."
    assert results[2] == f"wrote completion/note_errors.py ({len(GOOD_FN)} chars)"
    assert results[4] == f"wrote completion/other.py ({len(GOOD_FN)} chars)"


async def test_an_empty_write_is_refused(tmp_path):
    turns = [json.dumps({"tool": "write", "path": "completion/x.py", "content": " \n"}), json.dumps({"tool": "list"})]
    with FakeOpenAIServer(turns) as server, pytest.raises(EditorError):
        await LLMEditor(llm(server), max_turns=2).edit(request(), tmp_path / "staging")
    result = server.requests[-1]["messages"][-1]["content"]
    assert result == "error: write completion/x.py carried no file content: send the whole file with it"


async def test_a_call_sent_again_unchanged_is_answered_with_a_line_saying_so(tmp_path):
    """The 1.5B retried a failing edit, and wrote the file it was shown over itself, to the turn limit."""
    stale = json.dumps({"tool": "edit", "path": "completion/confirm_twice.py", "old": "no such text", "new": "x"})
    shown = (BASELINE / "modules" / "completion" / "confirm_twice.py").read_text()
    same = json.dumps({"tool": "write", "path": "completion/confirm_twice.py", "content": shown})
    turns = [stale, stale, stale, same, same, json.dumps({"tool": "list"})]
    with FakeOpenAIServer(turns) as server, pytest.raises(EditorError, match="did not finish within 6 turns"):
        await LLMEditor(llm(server), max_turns=6).edit(request(), tmp_path / "staging")
    results = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"][1:]
    assert "'old' must occur exactly once" in results[0] and "copy the text exactly" in results[0]
    assert "same call as your last one" not in results[0]
    assert all("same call as your last one and it failed the same way" in r for r in results[1:3])
    assert results[3] == "wrote completion/confirm_twice.py: the same text it held already, so nothing changed"
    assert results[4].startswith(results[3] + "\nThat is the same call as your last one, with the same result")
    transcript = [json.loads(line) for line in (tmp_path / "editor.jsonl").read_text().splitlines()]
    assert [m["purpose"] for m in transcript[:3]] == ["editor_system", "editor_task", "editor_reply"]
    assert len(transcript) == 2 + 2 * 6 and transcript[-1]["content"].startswith("completion/")  # whole, to the end


@pytest.mark.parametrize("change", ["comment", "docstring"])
async def test_a_change_of_comments_docstrings_or_layout_alone_is_refused_back_to_the_editor(tmp_path, change):
    """The local 1.5B's finished edits put a comment after a ``def`` line (the tool loop) or dropped the
    module's docstring (the guided format, which then spent 16 screen replays on it); nothing behaves
    differently, so the refusal goes back to the editor within its turns instead of on to the gates."""
    shown = (BASELINE / "modules" / "completion" / "confirm_twice.py").read_text()
    line = next(x for x in shown.splitlines() if x.startswith("def "))
    edit = {"old": line, "new": line + "  # check the claim more carefully\n"} if change == "comment" else \
        {"old": shown.splitlines()[0] + "\n", "new": ""}
    turns = [json.dumps({"tool": "edit", "path": "completion/confirm_twice.py", **edit}),
             json.dumps({"tool": "done", "description": DESCRIPTION}), json.dumps({"tool": "list"})]
    with FakeOpenAIServer(turns) as server, pytest.raises(EditorError, match="comments, docstrings or layout only"):
        await LLMEditor(llm(server), max_turns=3).edit(request(), tmp_path / "staging")
    assert not (tmp_path / "staging").exists()
    assert server.requests[-1]["messages"][-3]["content"] == "edited completion/confirm_twice.py"


async def test_a_description_the_review_would_refuse_outright_is_refused_back_to_the_editor(tmp_path):
    """The 1.5B's finished edits said "The changes have been implemented and ..." - no causal chain, so the
    review's pre-screen rejected them; the editor hears that while it still has turns to fix it."""
    active = [*load_generation(BASELINE).default_active()["completion"], "note_errors"]
    vague = "The changes have been implemented and the harness now handles completion claims correctly."
    turns = [json.dumps({"tool": "write", "path": "completion/note_errors.py", "content": GOOD_FN}),
             json.dumps({"tool": "activate", "module": "completion", "names": active}),
             json.dumps({"tool": "done", "description": vague}), json.dumps({"tool": "done", "description": "ok"}),
             json.dumps({"tool": "done", "description": DESCRIPTION})]
    with FakeOpenAIServer(turns) as server:
        proposal = await LLMEditor(llm(server), max_turns=5).edit(request(), tmp_path / "staging")
    assert proposal.description == DESCRIPTION
    results = [m["content"] for m in server.requests[-1]["messages"] if m["role"] == "user"][1:]
    assert results[2].startswith("Refused: the description: description states no causal chain")
    assert "description too short (1 words" in results[3]




async def test_the_guided_format_asks_for_the_file_then_the_description_and_does_the_rest(tmp_path):
    """No tools: the harness names the new file after the mechanism, activates it after the module's active
    files, checks each answer and asks again with the reason until it passes."""
    broken = GOOD_FN.replace("def check(ctx, claim):", "def check(ctx, claim)")
    turns = [f"{FENCE}python\n{broken}{FENCE}",  # does not parse
             f"Here it is:\n{FENCE}python\n{GOOD_FN.replace('ROLE', '# ROLE')}{FENCE}",  # no ROLE: refused
             GOOD_FN,  # the bare file is taken
             "It works better now than it did before the change.",  # no causal chain
             f'"{DESCRIPTION}"']
    with FakeOpenAIServer(turns) as server:
        proposal = await LLMEditor(llm(server), max_turns=5, form="guided").edit(request(), tmp_path / "staging")
    name = "completion_evidence_check"  # the direction's mechanism
    assert proposal.description == DESCRIPTION and f"modules/completion/{name}.py" in proposal.changed_files
    staged = load_generation(tmp_path / "staging")
    assert staged.default_active()["completion"] == [*load_generation(BASELINE).default_active()["completion"], name]
    system, task = (m["content"] for m in server.requests[0]["messages"][:2])
    assert "asked for one thing at a time" in system and '"tool"' not in system
    assert task.endswith(f"Write completion/{name}.py: a NEW additive file whose check carries out the suggested "
                         f"change (it runs after the module's active files; do not copy one of them). Answer with "
                         f"the whole file in one {FENCE}python block and nothing else; you will then be asked for "
                         "a one-sentence description.")
    transcript = [json.loads(line) for line in (tmp_path / "editor.jsonl").read_text().splitlines()]
    results = [m["content"] for m in transcript if m["role"] == "user"][1:]  # (each turn is sent only the last)
    assert results[0].startswith(f"Refused: completion/{name}.py") and "Send the whole file" in results[0]
    assert "ROLE" in results[1] and results[2].startswith("Now describe your change in one sentence")
    assert results[3].startswith("Refused: description states no causal chain")
    assert all("response_format" not in sent for sent in server.requests)


async def test_the_guided_format_rewrites_a_core_only_module_in_place_and_fails_with_the_last_reason(tmp_path):
    direction = request().direction.model_copy(update={"module": "tool_use", "mechanism": "parse-repair"})
    tool_use = EditRequest(direction=direction, parent_dir=BASELINE, modules=["tool_use"])
    core = load_generation(BASELINE).default_active()["tool_use"][0]
    shown = (BASELINE / "modules" / "tool_use" / f"{core}.py").read_text()
    with FakeOpenAIServer([shown, shown]) as server, \
            pytest.raises(EditorError, match="did not finish within 2 turns \\(last refusal: the editor finished "
                                             "without changing anything"):
        await LLMEditor(llm(server), max_turns=2, form="guided").edit(tool_use, tmp_path / "staging")
    task = server.requests[0]["messages"][1]["content"]
    assert task.endswith(f"Write tool_use/{core}.py: tool_use's core file, rewritten whole so that it carries out "
                         f"the suggested change. Answer with the whole file in one {FENCE}python block and nothing "
                         "else; you will then be asked for a one-sentence description.")
