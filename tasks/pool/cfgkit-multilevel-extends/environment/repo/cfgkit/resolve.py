"""Section inheritance: a section may say `extends = other` to start from
the keys of another section and override some of them."""
from .errors import ConfigError

EXTENDS = "extends"


def resolve_section(sections, name):
    """Return the effective keys of section *name* (inheritance applied)."""
    if name not in sections:
        raise ConfigError(f"unknown section [{name}]")
    own = dict(sections[name])
    base_name = own.pop(EXTENDS, None)
    if base_name is None:
        return own
    if base_name not in sections:
        raise ConfigError(f"[{name}] extends unknown section [{base_name}]")
    merged = dict(sections[base_name])
    merged.update(own)
    return merged
