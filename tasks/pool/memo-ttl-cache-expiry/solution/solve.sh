#!/bin/bash
set -e
cd /app

# step: make membership and len() ignore expired entries
python3 - <<'PY'
from pathlib import Path
p = Path("memo/cache.py")
s = p.read_text()
old = """    def __contains__(self, key):
        return key in self._data

    def __len__(self):
        return len(self._data)
"""
new = """    def __contains__(self, key):
        item = self._data.get(key)
        if item is None:
            return False
        if self._expired(item[0]):
            del self._data[key]
            return False
        return True

    def __len__(self):
        self.expire()
        return len(self._data)
"""
assert old in s
p.write_text(s.replace(old, new, 1))
PY

# step[easy-to-miss]: when full, drop expired entries before evicting the LRU live entry
python3 - <<'PY'
from pathlib import Path
p = Path("memo/cache.py")
s = p.read_text()
old = """        elif len(self._data) >= self.maxsize:
            self._data.popitem(last=False)
"""
new = """        else:
            if len(self._data) >= self.maxsize:
                self.expire()
            if len(self._data) >= self.maxsize:
                self._data.popitem(last=False)
"""
assert old in s
p.write_text(s.replace(old, new, 1))
PY
