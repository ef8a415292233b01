"""Names for the JSON whose shape is not the project's to fix, each used where that JSON flows.

Data of the project's own is a model (pydantic or a dataclass); an untyped dict left in
``src/`` is counted, and each one's reason given, by ``tests/architecture/test_untyped_dicts.py``.
"""

from __future__ import annotations

from typing import Any

#: The JSON body of an external HTTP API: an OpenAI-compatible chat-completions or embeddings request
#: or response, as sent over the wire.
WireBody = dict[str, Any]
#: A JSON Schema document (a model's response format, or the shape shown to it).
JSONSchema = dict[str, Any]
#: Values a user or a function chose, passed through whole: a function's PARAMETERS, ``--ek``/``--ak``
#: options, a model's extra call arguments, command-line overrides, a task's ``[metadata]`` table.
Options = dict[str, Any]
#: JSON or YAML read from outside (a model's reply, a run or config file) before its model validates it.
Unvalidated = dict[str, Any]
