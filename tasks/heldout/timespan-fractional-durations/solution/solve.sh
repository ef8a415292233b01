#!/bin/bash
set -e
cd /app

# step: accept decimal amounts (and bare decimal seconds)
python3 - <<'PY'
from pathlib import Path
p = Path("timespan/parse.py")
s = p.read_text()
s = s.replace('_PART = re.compile(r"(\\d+)\\s*([dhms])")', '_PART = re.compile(r"(\\d+(?:\\.\\d+)?)\\s*([dhms])")', 1)
assert "(?:\\.\\d+)?" in s
old = """    if text.isdigit():
        return int(text)
    total = 0
    for amount, unit in _PART.findall(text):
        total += int(amount) * UNITS[unit]
    return total
"""
new = """    if text.isdigit():
        return int(text)
    if re.fullmatch(r"\\d+\\.\\d+", text):
        return float(text)
    total = 0
    for amount, unit in _PART.findall(text):
        value = float(amount) * UNITS[unit]
        total += int(value) if value.is_integer() else value
    return total
"""
assert old in s
p.write_text(s.replace(old, new, 1))
PY

# step[easy-to-miss]: reject anything that is not entirely a valid duration
python3 - <<'PY'
from pathlib import Path
p = Path("timespan/parse.py")
s = p.read_text()
old = "    total = 0\n    for amount, unit in _PART.findall(text):\n"
new = ('    if not re.fullmatch(r"(?:\\s*\\d+(?:\\.\\d+)?\\s*[dhms])+", text):\n'
       '        raise ValueError(f"invalid duration: {text!r}")\n' + old)
assert old in s
p.write_text(s.replace(old, new, 1))
PY
