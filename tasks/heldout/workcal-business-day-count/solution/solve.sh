#!/bin/bash
set -e
cd /app

# step: only subtract holidays that fall on working weekdays
python3 - <<'PY'
from pathlib import Path
p = Path("workcal/calendar.py")
s = p.read_text()
old = "        count -= sum(1 for h in self.holidays if start <= h < end)\n"
new = "        count -= sum(1 for h in self.holidays if start <= h < end and h.weekday() not in self.weekend)\n"
assert old in s
p.write_text(s.replace(old, new, 1))
PY

# step[easy-to-miss]: use the calendar's own weekend instead of hard-coded Saturday/Sunday
python3 - <<'PY'
from pathlib import Path
p = Path("workcal/calendar.py")
s = p.read_text()
for old, new in [("        count = full_weeks * 5\n", "        count = full_weeks * (7 - len(self.weekend))\n"),
                 ("            if (first + i) % 7 < 5:\n", "            if (first + i) % 7 not in self.weekend:\n")]:
    assert old in s
    s = s.replace(old, new, 1)
p.write_text(s)
PY
