"""High level access to a parsed configuration."""
import re

from .errors import ConfigError
from .parser import parse
from .resolve import resolve_section

_REF = re.compile(r"\$\{([A-Za-z0-9_.-]+)\}")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class Config:
    def __init__(self, sections):
        self._sections = sections
        self._cache = {}

    @classmethod
    def from_string(cls, text):
        return cls(parse(text))

    @classmethod
    def from_file(cls, path):
        with open(path, encoding="utf-8") as fh:
            return cls.from_string(fh.read())

    def sections(self):
        return list(self._sections)

    def section(self, name):
        """Effective keys of *name*, inheritance and ${key} references applied."""
        if name not in self._cache:
            values = resolve_section(self._sections, name)
            self._cache[name] = {k: self._expand(values, v, name) for k, v in values.items()}
        return dict(self._cache[name])

    def _expand(self, values, value, name, depth=0):
        if depth > 10:
            raise ConfigError(f"[{name}]: reference loop in {value!r}")

        def sub(m):
            key = m.group(1)
            if key not in values:
                raise ConfigError(f"[{name}]: undefined reference ${{{key}}}")
            return self._expand(values, values[key], name, depth + 1)

        return _REF.sub(sub, value)

    def get(self, section, key, default=None):
        return self.section(section).get(key, default)

    def getint(self, section, key, default=None):
        value = self.get(section, key)
        return default if value is None else int(value)

    def getbool(self, section, key, default=None):
        value = self.get(section, key)
        if value is None:
            return default
        if value.lower() in _TRUE:
            return True
        if value.lower() in _FALSE:
            return False
        raise ConfigError(f"[{section}] {key}: not a boolean: {value!r}")
