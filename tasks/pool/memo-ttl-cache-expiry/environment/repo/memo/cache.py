"""LRU cache whose entries also expire after a fixed time-to-live."""
import time
from collections import OrderedDict

_MISSING = object()


class TTLCache:
    def __init__(self, maxsize, ttl, timer=time.monotonic):
        if maxsize < 1:
            raise ValueError("maxsize must be >= 1")
        if ttl <= 0:
            raise ValueError("ttl must be > 0")
        self.maxsize = maxsize
        self.ttl = ttl
        self.timer = timer
        self._data = OrderedDict()   # key -> (expires_at, value), LRU first
        self.hits = 0
        self.misses = 0

    def _expired(self, expires_at):
        return self.timer() >= expires_at

    def __setitem__(self, key, value):
        if key in self._data:
            del self._data[key]
        elif len(self._data) >= self.maxsize:
            self._data.popitem(last=False)
        self._data[key] = (self.timer() + self.ttl, value)

    def __getitem__(self, key):
        expires_at, value = self._data[key]
        if self._expired(expires_at):
            del self._data[key]
            raise KeyError(key)
        self._data.move_to_end(key)
        return value

    def __contains__(self, key):
        return key in self._data

    def __len__(self):
        return len(self._data)

    def get(self, key, default=None):
        try:
            value = self[key]
        except KeyError:
            self.misses += 1
            return default
        self.hits += 1
        return value

    def pop(self, key, default=_MISSING):
        try:
            value = self[key]
        except KeyError:
            if default is _MISSING:
                raise
            return default
        del self._data[key]
        return value

    def expire(self):
        """Drop all expired entries; return how many were removed."""
        now = self.timer()
        dead = [k for k, (exp, _) in self._data.items() if now >= exp]
        for k in dead:
            del self._data[k]
        return len(dead)

    def clear(self):
        self._data.clear()
