#!/bin/bash
set -e
cd /app

# step: in allow(), only record the request when it fits in the limit
python3 - <<'PY'
from pathlib import Path
p = Path("throttle/window.py")
s = p.read_text()
old = """        q = self._queue(key, now)
        q.append(now)
        return len(q) <= self.limit
"""
new = """        q = self._queue(key, now)
        if len(q) >= self.limit:
            return False
        q.append(now)
        return True
"""
assert old in s
p.write_text(s.replace(old, new, 1))
PY

# step[easy-to-miss]: allow_batch() has the same bug - reject the whole batch without recording it
python3 - <<'PY'
from pathlib import Path
p = Path("throttle/window.py")
s = p.read_text()
old = """        q = self._queue(key, now)
        q.extend([now] * units)
        return len(q) <= self.limit
"""
new = """        q = self._queue(key, now)
        if len(q) + units > self.limit:
            return False
        q.extend([now] * units)
        return True
"""
assert old in s
p.write_text(s.replace(old, new, 1))
PY
