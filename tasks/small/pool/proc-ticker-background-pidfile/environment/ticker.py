#!/usr/bin/env python3
"""Heartbeat ticker: prints a tick every 0.2 s until killed."""
import itertools
import time

for i in itertools.count():
    print(f"tick {i}", flush=True)
    time.sleep(0.2)
