"""One function in a core file, for the guided editor (``editor: {format: guided}``): where a direction names a
fault at a core callable's input, the model writes only a function that transforms that input, and the harness
puts it in front of the callable in a copy of the core file.

Asked to rewrite the Tool Use core file whole so that refused replies are read, the local 1.5B sent the file
back unchanged, turn after turn, and then a copy long enough to be cut at its output limit. Here it writes
``repair_reply(text)`` - shown the replies the parser refused (:mod:`~modularrsi.evolve.reply_cases`) - and
the harness renames the parent's ``parse`` and defines a ``parse`` that calls it on the repaired text. For a
Context direction about refused replies (the model answering the parser's feedback with its refused reply
again), it writes ``edit_history(history, error)``, given the parser's error for the latest reply, and the
history it returns goes to ``before_query``; returning a history without the refused reply asks the message
that reply answered again (the kernel sends a history's last user message as the prompt). The file is then
checked as any edit is (a Tool Use ``parse`` also run on the recorded replies).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from modularrsi.evolve.edit_request import EditRequest
from modularrsi.evolve.reply_cases import about_parsing, about_refusals

__all__ = ["FORGET", "HOLES", "REPAIR", "Hole", "copied", "fill", "hole_for"]


@dataclass(frozen=True)
class Hole:
    """A function the model writes (``name(*params)``, returning a new ``params[0]``) run before core callable
    ``wraps``, whose first argument it replaces; ``code`` is the callable that calls it, a template. Where that
    callable is itself async (``awaits``), an ``async def`` the model writes is awaited: asked for
    ``edit_history`` beside the async ``before_query``, the 1.5B wrote ``async def`` in 51 of its 64 answers."""

    module: str
    wraps: str
    name: str
    params: tuple[str, ...]
    does: str  # what the function must do, said to the model
    general: str  # what "general" means for it, said to the model
    code: str  # the new ``wraps``: {args}, {first}, {before} (the renamed parent) and {call} filled in
    needs: str = ""  # an import line ``code`` needs, added unless the core file has it
    awaits: bool = False  # ``code`` is async: {call} awaits an async function

    @property
    def signature(self) -> str:
        return f"def {self.name}({', '.join(self.params)}):"

    def ask(self) -> str:
        first = self.params[0]
        return (f"Write one Python function, {self.signature}, that {self.does}. It runs before every {self.wraps} "
                f"(return {first} unchanged when it needs nothing). Make it {self.general}, with no text copied "
                "from the examples; it may import only the allowed modules. Answer with the function alone in one "
                "```python block; you will then be asked for a one-sentence description.")

    def shorter(self) -> str:
        """What a model is told when its function was cut off at the output limit (the 1.5B repeated one line)."""
        return f"write {self.name} short (under 20 lines): {self.general}, with no text copied from the examples"

    def again(self) -> str:
        return f"Send {self.signature} again, fixed, alone in one ```python block."

    def shown(self, core_source: str) -> str:
        """What the model is shown of the core file: the callable its function runs before."""
        node = _defined(ast.parse(core_source))[self.wraps]
        code = "\n".join(core_source.splitlines()[node.lineno - 1:node.end_lineno])
        return f"The function yours runs before:\n```python\n{code}\n```\n\n"


def _defined(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


REPAIR = Hole("tool_use", "parse", "repair_reply", ("text",),
              "gets one whole reply of the agent model (text is like the replies between ~~~~ lines above) and "
              "returns it repaired so that the parser reads it",
              "a general repair of the kind of fault the errors name, for any text",
              'def parse({args}):\n    """parse, on the {first} repair_reply returns."""\n'
              "    {first} = repair_reply({first})\n    if not isinstance({first}, str):  # said to the model\n"
              '        raise TypeError("repair_reply must return the {first} (a str), repaired")\n'
              "    return {before}({args})\n")
FORGET = Hole("context", "before_query", "edit_history", ("history", "error"),
              "gets the conversation so far - history, a list of messages m with m.role ('user' or 'assistant') and "
              "m.content (the text), whose last message is the agent model's latest reply - and error, the "
              "parser's message for that reply (a str), or None when the parser read it, and returns the "
              "conversation to go on from (a list of those messages; a list that ends with a user message has "
              "that message sent as the next prompt instead of the parser's feedback)",
              "general, for any history and error",
              'async def before_query({args}):\n    """before_query, on the {first} edit_history returns (given the '
              'parser\'s error for the latest reply)."""\n'
              "    turns = ctx.state.turns\n    error = turns[-1].reply.error if turns else None\n"
              "    edited = {call}(list({first}), error)\n"
              "    if not isinstance(edited, list) or not all(isinstance(m, Message) for m in edited):\n"
              '        raise TypeError("edit_history must return the history (a list of messages)")  # said to the '
              "model\n    new = await {before}(edited, ctx)\n"
              "    return edited if new is None and edited != list({first}) else new\n",
              "from modularrsi.harness.protocols import Message", awaits=True)
HOLES = (REPAIR, FORGET)


def hole_for(request: EditRequest, core_source: str) -> Hole | None:
    """The hole for this request, if its core file defines the wrapped callable: a parsing direction of Tool Use
    with refused replies recorded, or a Context direction about refused replies."""
    d = request.direction
    if request.module == "tool_use" and not (about_parsing(d) and any(r.error for r in request.replies)):
        return None
    if request.module == "context" and not about_refusals(d):
        return None
    try:
        defined = _defined(ast.parse(core_source))
    except SyntaxError:
        return None
    return next((h for h in HOLES if h.module == request.module and h.wraps in defined), None)


def copied(code: str, task: str, source: str = "", least: int = 12) -> str | None:
    """A string in ``code`` of at least ``least`` characters that the task message holds word for word and the core
    file ``source`` does not (the 1.5B matched the error against symptom texts of its task as if every error read
    so), or None."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    return next((n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                 and len(n.value.strip()) >= least and n.value.strip() in task and n.value.strip() not in source),
                None)


def fill(hole: Hole, core_source: str, code: str) -> str:
    """The core file with the model's function in front of ``hole.wraps``; ValueError says what is wrong with
    ``code`` (one line, for the model)."""
    try:
        written = ast.parse(code)
    except SyntaxError as exc:
        raise ValueError(f"your function does not parse: line {exc.lineno}: {exc.msg}") from None
    function = next((n for n in written.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                     and n.name == hole.name), None)
    awaited = isinstance(function, ast.AsyncFunctionDef)
    if awaited and not hole.awaits:
        raise ValueError(f"{hole.name} must be a plain def, not async def: the harness calls it and uses what it "
                         "returns at once")
    if function is None or len(function.args.args) != len(hole.params):
        said = "one argument" if len(hole.params) == 1 else f"{len(hole.params)} arguments"
        raise ValueError(f"the block must define {hole.signature} with {said}")
    lines = code.splitlines()
    imports = [n for n in written.body if isinstance(n, ast.Import | ast.ImportFrom)]
    added = "".join("\n".join(lines[n.lineno - 1:n.end_lineno]) + "\n" for n in imports) + "\n\n" * bool(imports) \
        + "\n".join(lines[function.lineno - 1:function.end_lineno])
    tree = ast.parse(core_source)
    defined = _defined(tree)
    if hole.name in defined:
        raise ValueError(f"the core file defines {hole.name} already: this edit cannot add it again")
    before = f"{hole.wraps}_before_{hole.name}"  # no leading "_": the checks refuse such names
    target = defined[hole.wraps]
    source = core_source.splitlines()
    header = source[target.lineno - 1]
    source[target.lineno - 1] = header.replace(f"def {hole.wraps}(", f"def {before}(", 1)
    args = ", ".join(a.arg for a in target.args.args)
    first = target.args.args[0].arg
    described = next((n for n in tree.body if isinstance(n, ast.Assign) and len(n.targets) == 1
                      and isinstance(n.targets[0], ast.Name) and n.targets[0].id == "DESCRIPTION"), None)
    if described is not None:  # the file says what it does now (the review reads it)
        said = f"{ast.literal_eval(described.value)} Each {first} first goes through {hole.name} (an edit's)."
        source[described.lineno - 1:described.end_lineno] = [f"DESCRIPTION = {said!r}"]
    call = f"await {hole.name}" if awaited else hole.name
    wrapper = hole.code.format(args=args, first=first, before=before, call=call)
    if hole.needs and hole.needs not in source:
        added = f"{hole.needs}\n\n\n{added}"
    return "\n".join(source).rstrip() + f"\n\n\n{added}\n\n\n{wrapper}"
