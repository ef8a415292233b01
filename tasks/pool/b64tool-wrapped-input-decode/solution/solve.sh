#!/bin/bash
set -e
cd /app

# step: skip ASCII whitespace (space, tab, CR, LF) anywhere in the decoder input
python3 - <<'PY'
from pathlib import Path
p = Path("src/b64.c")
s = p.read_text()
old = """    for (i = 0; i < n; i++) {
        int v;
        if (in[i] == '=') {"""
new = """    for (i = 0; i < n; i++) {
        int v;
        if (in[i] == ' ' || in[i] == '\\t' || in[i] == '\\r' || in[i] == '\\n')
            continue;
        if (in[i] == '=') {"""
assert old in s
p.write_text(s.replace(old, new, 1))
PY

# step[easy-to-miss]: '=' padding carries no data - it must not produce output bytes
python3 - <<'PY'
from pathlib import Path
p = Path("src/b64.c")
s = p.read_text()
old = """        if (in[i] == '=') {
            pad++;
            v = 0;
        } else {"""
new = """        if (in[i] == '=') {
            pad++;
            continue;
        } else {"""
assert old in s
s = s.replace(old, new, 1)
p.write_text(s)
PY
make -B -s
