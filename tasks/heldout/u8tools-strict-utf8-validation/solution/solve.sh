#!/bin/bash
set -e
cd /app

# step: utf8_truncate - back up while the byte at the cut is a continuation byte
python3 - <<'PY'
from pathlib import Path
p = Path("src/utf8.c")
s = p.read_text()
old = """    /* do not end inside a multi-byte character */
    while (k > 0 && is_cont(s[k - 1]))
        k--;
"""
new = """    /* do not end inside a multi-byte character: s[k] must start a character */
    while (k > 0 && k < n && is_cont(s[k]))
        k--;
"""
assert old in s
p.write_text(s.replace(old, new, 1))
PY

# step: reject overlong encodings (decode the code point and require the shortest form)
python3 - <<'PY'
from pathlib import Path
p = Path("src/utf8.c")
s = p.read_text()
old = """        for (k = 1; k < len; k++)
            if (!is_cont(s[i + k]))
                return i;
        i += len;
"""
new = """        for (k = 1; k < len; k++)
            if (!is_cont(s[i + k]))
                return i;
        {
            static const unsigned long min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
            unsigned long cp = len == 1 ? c : len == 2 ? (c & 0x1Fu) : len == 3 ? (c & 0x0Fu) : (c & 0x07u);
            for (k = 1; k < len; k++)
                cp = (cp << 6) | (s[i + k] & 0x3Fu);
            if (cp < min_cp[len])
                return i;              /* overlong */
        }
        i += len;
"""
assert old in s
p.write_text(s.replace(old, new, 1))
PY

# step[easy-to-miss]: also reject UTF-16 surrogates and code points above U+10FFFF
python3 - <<'PY'
from pathlib import Path
p = Path("src/utf8.c")
s = p.read_text()
old = """            if (cp < min_cp[len])
                return i;              /* overlong */
"""
new = old + """            if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
                return i;              /* surrogate or beyond Unicode */
"""
assert old in s
p.write_text(s.replace(old, new, 1))
PY
make -B -s
