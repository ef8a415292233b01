#!/bin/bash
set -e
cd /app

# step: compute total_pages as a ceiling division, with at least one page
python3 - <<'PY'
from pathlib import Path
p = Path("catalogapi/pagination.py")
s = p.read_text()
old = "        return self.total // self.per_page + 1\n"
assert old in s
s = s.replace(old, "        return max(1, -(-self.total // self.per_page))\n")
p.write_text(s)
PY

# step[easy-to-miss]: build_link_header() computes the last page itself - fix it the same way
python3 - <<'PY'
from pathlib import Path
p = Path("catalogapi/links.py")
s = p.read_text()
old = "    last = (total + per_page) // per_page\n"
assert old in s
s = s.replace(old, "    last = max(1, -(-total // per_page))\n")
p.write_text(s)
PY
