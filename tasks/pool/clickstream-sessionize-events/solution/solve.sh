#!/bin/bash
set -e
cd /app
mkdir -p out

# step: inspect the three event files and their different ts formats
head -2 events/web.jsonl events/mobile.jsonl events/api.jsonl

# step[easy-to-miss]: load all files, skip anonymous/invalid lines, normalise every ts (offsets, epoch ms) to UTC epoch seconds
python3 - <<'PY'
import glob, json
from datetime import datetime
events, skipped = [], 0
for fn in sorted(glob.glob("events/*.jsonl")):
    for line in open(fn):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            skipped += 1
            continue
        if not r.get("user"):
            continue
        ts = r["ts"]
        if isinstance(ts, (int, float)):
            t = int(ts // 1000)
        else:
            t = int(datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp())
        events.append((r["user"], t))
json.dump({"events": sorted(events), "skipped": skipped}, open("/tmp/events_utc.json", "w"))
PY

# step: split each user's events into sessions (gap > 1800 s) and write sessions.csv and summary.json
python3 - <<'PY'
import csv, json
from datetime import datetime, timezone
d = json.load(open("/tmp/events_utc.json"))
sessions = []
for user, t in d["events"]:
    if sessions and sessions[-1][0] == user and t - sessions[-1][3] <= 1800:
        sessions[-1][3] = t
        sessions[-1][4] += 1
    else:
        n = sessions[-1][1] + 1 if sessions and sessions[-1][0] == user else 1
        sessions.append([user, n, t, t, 1])
fmt = lambda t: datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
with open("out/sessions.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["user", "session", "start", "end", "events", "duration_s"])
    for user, n, a, b, k in sessions:
        w.writerow([user, n, fmt(a), fmt(b), k, b - a])
json.dump({"users": len({s[0] for s in sessions}), "sessions": len(sessions),
           "events": len(d["events"]), "skipped_lines": d["skipped"]}, open("out/summary.json", "w"), indent=2)
PY
