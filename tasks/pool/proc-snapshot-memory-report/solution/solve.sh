#!/bin/bash
set -e
# step[easy-to-miss]: write memtop.py, resolving users from the snapshot's etc/passwd (numeric fallback)
cat > /app/memtop.py <<'PY'
#!/usr/bin/env python3
import csv, os, sys

def load_passwd(snap):
    users = {}
    try:
        with open(os.path.join(snap, "etc", "passwd")) as f:
            for line in f:
                parts = line.rstrip("\n").split(":")
                if len(parts) >= 3 and parts[2].isdigit():
                    users.setdefault(int(parts[2]), parts[0])
    except FileNotFoundError:
        pass
    return users

def main():
    snap = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    users = load_passwd(snap)
    rows = []
    procdir = os.path.join(snap, "proc")
    for pid in os.listdir(procdir):
        if not pid.isdigit():
            continue
        fields = {}
        try:
            with open(os.path.join(procdir, pid, "status")) as f:
                for line in f:
                    k, _, v = line.partition(":")
                    fields[k.strip()] = v.strip()
        except OSError:
            continue
        if "VmRSS" not in fields:
            continue
        rss_kb = int(fields["VmRSS"].split()[0])
        uid = int(fields["Uid"].split()[0])
        try:
            raw = open(os.path.join(procdir, pid, "cmdline"), "rb").read()
        except OSError:
            raw = b""
        args = [a.decode(errors="replace") for a in raw.split(b"\0")]
        while args and args[-1] == "":
            args.pop()
        cmd = " ".join(args) if args else f"[{fields.get('Name', '')}]"
        rows.append((rss_kb, int(pid), users.get(uid, str(uid)), cmd))
    rows.sort(key=lambda r: (-r[0], r[1]))
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["pid", "user", "rss_mib", "command"])
    for rss_kb, pid, user, cmd in rows[:n]:
        w.writerow([pid, user, f"{rss_kb / 1024:.1f}", cmd])

main()
PY
chmod +x /app/memtop.py
# step: produce the report for the shipped snapshot
python3 /app/memtop.py /app/snapshot > /app/report.csv
