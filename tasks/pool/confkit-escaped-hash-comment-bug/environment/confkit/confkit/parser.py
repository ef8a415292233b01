"""Parser for confkit configuration files (see README.md for the format)."""

DEFAULT_SECTION = "default"


class ConfigError(ValueError):
    def __init__(self, lineno, message):
        super().__init__(f"line {lineno}: {message}")
        self.lineno = lineno
        self.message = message


def _strip_comment(line):
    """Drop an inline '#' comment."""
    idx = line.find("#")
    if idx != -1:
        line = line[:idx]
    return line


def _unescape(value):
    return value.replace("\\#", "#").replace("\\\\", "\\")


def loads(text):
    """Parse configuration text into {section: {key: value}}."""
    data = {DEFAULT_SECTION: {}}
    section = DEFAULT_SECTION
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if raw.lstrip().startswith(";"):
            continue
        line = _strip_comment(raw).strip()
        if not line:
            continue
        if line.startswith("["):
            if not line.endswith("]"):
                raise ConfigError(lineno, "unterminated section header")
            section = line[1:-1].strip()
            if not section:
                raise ConfigError(lineno, "empty section name")
            data.setdefault(section, {})
            continue
        if "=" not in line:
            raise ConfigError(lineno, "expected 'key = value'")
        key, value = line.split("=", 1)
        key = key.strip()
        if not key:
            raise ConfigError(lineno, "empty key")
        data[section][key] = _unescape(value.strip())
    return data


def load(path):
    with open(path, encoding="utf-8") as fh:
        return loads(fh.read())
