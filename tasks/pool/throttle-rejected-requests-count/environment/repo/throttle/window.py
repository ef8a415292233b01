"""Sliding-window rate limiter.

At most `limit` units are accepted per key within any `window` seconds.
"""
from collections import deque

from .clock import MonotonicClock


class SlidingWindowLimiter:
    def __init__(self, limit, window, clock=None):
        if limit < 1 or window <= 0:
            raise ValueError("limit must be >= 1 and window > 0")
        self.limit = limit
        self.window = float(window)
        self.clock = clock or MonotonicClock()
        self._hits = {}

    def _queue(self, key, now):
        q = self._hits.setdefault(key, deque())
        while q and q[0] <= now - self.window:
            q.popleft()
        return q

    def allow(self, key):
        """Record one request for *key*; return True if it is within the limit."""
        now = self.clock.now()
        q = self._queue(key, now)
        q.append(now)
        return len(q) <= self.limit

    def allow_batch(self, key, units):
        """Record a request costing *units*; True if all of it fits in the limit."""
        if units < 1:
            raise ValueError("units must be >= 1")
        if units > self.limit:
            return False
        now = self.clock.now()
        q = self._queue(key, now)
        q.extend([now] * units)
        return len(q) <= self.limit

    def remaining(self, key):
        """Units still available for *key* right now."""
        q = self._queue(key, self.clock.now())
        return max(self.limit - len(q), 0)

    def retry_after(self, key):
        """Seconds until *key* may send one more request (0.0 if it may now)."""
        now = self.clock.now()
        q = self._queue(key, now)
        if len(q) < self.limit:
            return 0.0
        return q[len(q) - self.limit] + self.window - now

    def reset(self, key=None):
        if key is None:
            self._hits.clear()
        else:
            self._hits.pop(key, None)
