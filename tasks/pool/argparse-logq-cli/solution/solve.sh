#!/bin/bash
set -e
# step: write the CLI with argparse validation, filtering and unreadable-file handling
cat > /app/logq.py <<'PY'
#!/usr/bin/env python3
"""Filter service log lines by level, time window and component."""
import argparse
import re
import sys
from datetime import datetime, timezone

LEVELS = {"DEBUG": 0, "INFO": 1, "WARN": 2, "ERROR": 3}
LINE_RE = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z) (DEBUG|INFO|WARN|ERROR) ([A-Za-z0-9_.-]+): (.*)$")


def timestamp(text):
    for fmt in ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            pass
    raise argparse.ArgumentTypeError(f"invalid timestamp: {text!r}")


def level(text):
    up = text.upper()
    if up not in LEVELS:
        raise argparse.ArgumentTypeError(f"unknown level: {text!r}")
    return up


def main(argv=None):
    p = argparse.ArgumentParser(prog="logq", description=__doc__)
    p.add_argument("--level", type=level)
    p.add_argument("--since", type=timestamp)
    p.add_argument("--until", type=timestamp)
    p.add_argument("--component", action="append")
    p.add_argument("--count", action="store_true")
    p.add_argument("files", nargs="+", metavar="FILE")
    a = p.parse_args(argv)

    matched = 0
    unreadable = False
    for path in a.files:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            print(f"logq: cannot read {path}", file=sys.stderr)
            unreadable = True
            continue
        for line in text.splitlines():
            m = LINE_RE.match(line)
            if not m:
                continue
            t = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
            if a.level and LEVELS[m.group(2)] < LEVELS[a.level]:
                continue
            if a.since and t < a.since:
                continue
            if a.until and t >= a.until:
                continue
            if a.component and m.group(3) not in a.component:
                continue
            matched += 1
            if not a.count:
                print(line)
    if a.count:
        print(matched)
    if unreadable:
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
PY
python3 /app/logq.py --count --level error /app/logs/*.log || true
# step[easy-to-miss]: exit 1 when nothing matched (also with --count)
python3 - <<'PY'
p = "/app/logq.py"
s = open(p).read()
s = s.replace("        return 3\n    return 0\n", "        return 3\n    return 0 if matched else 1\n")
open(p, "w").write(s)
PY
python3 /app/logq.py --component nosuch /app/logs/*.log || echo "exit $?"
