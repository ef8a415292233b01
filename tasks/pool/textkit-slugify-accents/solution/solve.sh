#!/bin/bash
set -e
cd /app

# step: add an ASCII-folding helper to textkit/slug.py and use it in slugify()
python3 - <<'PY'
from pathlib import Path
p = Path("textkit/slug.py")
s = p.read_text()
s = s.replace('import re\n', '''import re
import unicodedata

_SPECIAL = {"ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE",
            "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ł": "l", "Ł": "L"}


def fold_ascii(text):
    """Replace accented letters by their plain ASCII letter, keeping case."""
    text = "".join(_SPECIAL.get(ch, ch) for ch in text)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
''', 1)
s = s.replace("_NON_ALNUM.sub(sep, text.lower())", "_NON_ALNUM.sub(sep, fold_ascii(text).lower())")
p.write_text(s)
PY

# step[easy-to-miss]: safe_filename() has its own character filter - fold there as well
python3 - <<'PY'
from pathlib import Path
p = Path("textkit/filenames.py")
s = p.read_text()
s = s.replace("import re\n", "import re\n\nfrom .slug import fold_ascii\n", 1)
s = s.replace('name = os.path.basename(name.replace("\\\\", "/")).strip()',
              'name = fold_ascii(os.path.basename(name.replace("\\\\", "/")).strip())')
assert "fold_ascii(os.path" in s
p.write_text(s)
PY
