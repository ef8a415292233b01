"""One function in a core file, for the guided editor (``editor: {format: guided}``): where a direction names a
fault at a core callable's input, the model writes only a function that transforms that input, and the harness
puts it in front of the callable in a copy of the core file.

Asked to rewrite the Tool Use core file whole so that refused replies are read, the local 1.5B sent the file
back unchanged, turn after turn, and then a copy long enough to be cut at its output limit. Here it writes
``repair_reply(text)`` - shown the replies the parser refused (:mod:`~modularrsi.evolve.reply_cases`) - and
the harness renames the parent's ``parse`` and defines a ``parse`` that calls it on the repaired text. The
file is then checked as any edit is, and its ``parse`` run on the recorded replies.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from modularrsi.evolve.edit_request import EditRequest
from modularrsi.evolve.reply_cases import about_parsing

__all__ = ["HOLES", "Hole", "fill", "hole_for"]


@dataclass(frozen=True)
class Hole:
    """A function the model writes (``name(arg)``, returning a new ``arg``) run before core callable ``wraps``."""

    module: str
    wraps: str
    name: str
    arg: str
    does: str  # what the function must do, said to the model

    def ask(self) -> str:
        return (f"Write one Python function, def {self.name}({self.arg}):, that {self.does}. It runs on every "
                f"{self.arg} before {self.wraps} (return {self.arg} unchanged when it needs nothing). Make it a "
                f"general repair of the kind of fault the errors name, for any {self.arg}, with no text copied "
                "from the examples; it may import only the allowed modules. Answer with the function alone in one "
                "```python block; you will then be asked for a one-sentence description.")

    def shorter(self) -> str:
        """What a model is told when its function was cut off at the output limit (the 1.5B repeated one line)."""
        return (f"write {self.name} short (under 20 lines): a general repair of the kind of fault the errors name, "
                f"for any {self.arg}, with no text copied from the examples")

    def again(self) -> str:
        return f"Send def {self.name}({self.arg}): again, fixed, alone in one ```python block."

    def shown(self, core_source: str) -> str:
        """What the model is shown of the core file: the callable its function runs before."""
        tree = ast.parse(core_source)
        node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == self.wraps)
        code = "\n".join(core_source.splitlines()[node.lineno - 1:node.end_lineno])
        return f"The function yours runs before:\n```python\n{code}\n```\n\n"


HOLES = (Hole("tool_use", "parse", "repair_reply", "text",
              "gets one whole reply of the agent model (text is like the replies between ~~~~ lines above) and "
              "returns it repaired so that the parser reads it"),)


def hole_for(request: EditRequest, core_source: str) -> Hole | None:
    """The hole for this request: a parsing direction of Tool Use with refused replies recorded, whose core file
    defines the wrapped callable."""
    if not (about_parsing(request.direction) and any(r.error for r in request.replies)):
        return None
    try:
        tree = ast.parse(core_source)
    except SyntaxError:
        return None
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    return next((h for h in HOLES if h.module == request.module and h.wraps in defined), None)


def fill(hole: Hole, core_source: str, code: str) -> str:
    """The core file with the model's function in front of ``hole.wraps``; ValueError says what is wrong with
    ``code`` (one line, for the model)."""
    try:
        written = ast.parse(code)
    except SyntaxError as exc:
        raise ValueError(f"your function does not parse: line {exc.lineno}: {exc.msg}") from None
    function = next((n for n in written.body if isinstance(n, ast.FunctionDef) and n.name == hole.name), None)
    if function is None or len(function.args.args) != 1:
        raise ValueError(f"the block must define def {hole.name}({hole.arg}): with one argument")
    lines = code.splitlines()
    imports = [n for n in written.body if isinstance(n, ast.Import | ast.ImportFrom)]
    added = "".join("\n".join(lines[n.lineno - 1:n.end_lineno]) + "\n" for n in imports) + "\n\n" * bool(imports) \
        + "\n".join(lines[function.lineno - 1:function.end_lineno])
    tree = ast.parse(core_source)
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    if hole.name in names:
        raise ValueError(f"the core file defines {hole.name} already: this edit cannot add it again")
    before = f"{hole.wraps}_before_{hole.name}"  # no leading "_": the checks refuse such names
    target = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == hole.wraps)
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
    wrapper = (f"def {hole.wraps}({args}):\n    \"\"\"{hole.wraps}, on the {first} {hole.name} returns.\"\"\"\n"
               f"    {first} = {hole.name}({first})\n    if not isinstance({first}, str):  # said to the model\n"
               f"        raise TypeError(\"{hole.name} must return the {first} (a str), repaired\")\n"
               f"    return {before}({args})\n")
    return "\n".join(source).rstrip() + f"\n\n\n{added}\n\n\n{wrapper}"
