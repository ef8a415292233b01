#!/usr/bin/env python3
"""Nightly disk check: prints the usage of each mount point; problems go to stderr.
Exit status: 0 all fine, 3 when a mount point is above its limit."""
import sys

LIMIT = 90
USAGE = [("/", 41), ("/var", 87), ("/srv/data", 96), ("/home", 12)]

print(f"checking {len(USAGE)} mount points")
critical = 0
for mount, pct in USAGE:
    state = "CRITICAL" if pct > LIMIT else "ok"
    print(f"{mount:<10} {pct:>3}% used  {state}")
    if pct > LIMIT:
        critical += 1
        print(f"CRITICAL: {mount} is {pct}% full (limit {LIMIT}%)", file=sys.stderr)
if critical:
    print(f"error: {critical} mount point(s) above the limit", file=sys.stderr)
print("disk check finished")
sys.exit(3 if critical else 0)
