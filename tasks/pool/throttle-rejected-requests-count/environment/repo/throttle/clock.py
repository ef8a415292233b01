"""Clocks. Limiters take a clock so tests can drive time explicitly."""
import time


class MonotonicClock:
    def now(self):
        return time.monotonic()


class FakeClock:
    def __init__(self, start=0.0):
        self._t = float(start)

    def now(self):
        return self._t

    def advance(self, seconds):
        if seconds < 0:
            raise ValueError("time only moves forward")
        self._t += seconds
