#!/bin/bash
set -e
cd /app

# step: resolve the base section recursively so inheritance is transitive
cat > cfgkit/resolve.py <<'PY'
"""Section inheritance: a section may say `extends = other` to start from
the keys of another section and override some of them."""
from .errors import ConfigError

EXTENDS = "extends"


def resolve_section(sections, name, _chain=()):
    """Return the effective keys of section *name* (inheritance applied)."""
    if name not in sections:
        if _chain:
            raise ConfigError(f"[{_chain[-1]}] extends unknown section [{name}]")
        raise ConfigError(f"unknown section [{name}]")
    own = dict(sections[name])
    base_name = own.pop(EXTENDS, None)
    if base_name is None:
        return own
    merged = resolve_section(sections, base_name, _chain + (name,))
    merged.update(own)
    return merged
PY

# step[easy-to-miss]: detect inheritance cycles and report them as ConfigError
python3 - <<'PY'
from pathlib import Path
p = Path("cfgkit/resolve.py")
s = p.read_text()
old = "    own = dict(sections[name])\n"
new = ('    if name in _chain:\n'
       '        loop = " -> ".join(_chain[_chain.index(name):] + (name,))\n'
       '        raise ConfigError(f"inheritance cycle: {loop}")\n' + old)
assert old in s
p.write_text(s.replace(old, new, 1))
PY
