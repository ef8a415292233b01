"""Settings from a YAML file merged with overrides, validated once by the settings model."""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ValidationError

from modularrsi.util.errors import UserError
from modularrsi.util.jsontypes import Options, Unvalidated


def load_settings[M: BaseModel](model: type[M], path: Path | None, overrides: Options | None = None) -> M:
    """``model`` from the mapping in ``path`` (none: defaults) updated with ``overrides``; a ValueError
    naming the file and the first bad field otherwise."""
    data: Unvalidated = {}
    if path is not None:
        try:
            data = yaml.safe_load(Path(path).read_text()) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise UserError(f"{path}: cannot read ({exc})") from None
        if not isinstance(data, dict):
            raise UserError(f"{path}: must be a mapping of settings")
    try:
        return model.model_validate({**data, **(overrides or {})})
    except ValidationError as exc:
        raise UserError(f"{path or 'config'}: {option_error(exc, 'field')}") from None


def option_error(exc: ValidationError, what: str = "option") -> str:
    """The first problem of ``exc`` in one line: ``<what> 'a.b': message (given: value)``."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    given = f" (given: {first['input']!r})" if first["type"] != "missing" and not isinstance(first["input"], dict) \
        else ""
    return f"{what} '{where}': {first['msg']}{given}"
