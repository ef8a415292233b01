#!/usr/bin/env python3
"""Thumbnail worker: polls /app/inbox for *.job files and 'processes' them.

It is known to crash (exit code 2) on malformed jobs; ops runs it under a supervisor.
"""
import json, os, sys, time

INBOX = os.environ.get("WORKER_INBOX", "/app/inbox")

def main():
    os.makedirs(INBOX, exist_ok=True)
    while True:
        for name in sorted(os.listdir(INBOX)):
            if not name.endswith(".job"):
                continue
            path = os.path.join(INBOX, name)
            with open(path) as f:
                job = json.load(f)          # malformed JSON -> crash
            print(f"processed {name}: {job.get('image')}", flush=True)
            os.rename(path, path + ".done")
        time.sleep(1)

if __name__ == "__main__":
    sys.exit(main())
