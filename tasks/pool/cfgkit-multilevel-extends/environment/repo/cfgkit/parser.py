"""Line-based parser for the deployment config format.

    # comment
    [section]
    key = value
"""
import re

from .errors import ConfigError

_SECTION = re.compile(r"^\[([A-Za-z0-9_.-]+)\]$")
_PAIR = re.compile(r"^([A-Za-z0-9_.-]+)\s*=\s*(.*)$")


def parse(text):
    """Parse *text* into an ordered dict {section: {key: raw_value}}."""
    sections = {}
    current = None
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        m = _SECTION.match(line)
        if m:
            current = m.group(1)
            if current in sections:
                raise ConfigError(f"line {lineno}: duplicate section [{current}]")
            sections[current] = {}
            continue
        m = _PAIR.match(line)
        if not m:
            raise ConfigError(f"line {lineno}: cannot parse {raw!r}")
        if current is None:
            raise ConfigError(f"line {lineno}: key outside of a section")
        sections[current][m.group(1)] = m.group(2).strip()
    return sections
