#!/bin/bash
set -e
# step[easy-to-miss]: write audit.py (includedir skips names with '.' or ending in '~'; primary groups count)
cat > /app/audit.py <<'PY'
#!/usr/bin/env python3
"""Privilege audit of an /etc snapshot: python3 audit.py SNAPSHOT_DIR"""
import json
import os
import re
import sys


def read_lines(path):
    with open(path) as f:
        return f.read().splitlines()


def main():
    snap = sys.argv[1]
    etc = os.path.join(snap, "etc")
    users = {}  # name -> (uid, gid)
    for line in read_lines(os.path.join(etc, "passwd")):
        p = line.split(":")
        if len(p) >= 7:
            users[p[0]] = (int(p[2]), int(p[3]))
    shadow = {}
    for line in read_lines(os.path.join(etc, "shadow")):
        p = line.split(":")
        if len(p) >= 2:
            shadow[p[0]] = p[1]
    groups = {}  # name -> set(members)
    gids = {}
    for line in read_lines(os.path.join(etc, "group")):
        p = line.split(":")
        if len(p) >= 4:
            groups[p[0]] = {m for m in p[3].split(",") if m}
            gids[p[0]] = int(p[2])
    for g, gid in gids.items():
        groups[g] |= {u for u, (_, ugid) in users.items() if ugid == gid}

    # collect sudoers lines (main file + includedir, skipping names with '.' or ending in '~')
    lines = []

    def load(path):
        for line in read_lines(path):
            s = line.strip()
            m = re.match(r"^[@#]includedir\s+(\S+)", s)
            if m:
                d = os.path.join(snap, m.group(1).lstrip("/"))
                if os.path.isdir(d):
                    for fn in sorted(os.listdir(d)):
                        if fn.endswith("~") or "." in fn:
                            continue
                        fp = os.path.join(d, fn)
                        if os.path.isfile(fp):
                            load(fp)
                continue
            if not s or s.startswith("#"):
                continue
            lines.append(s)

    load(os.path.join(etc, "sudoers"))

    aliases = {}
    all_cmd, nopasswd = set(), set()

    def expand(who):
        out = set()
        for w in (x.strip() for x in who.split(",")):
            if not w:
                continue
            if w.startswith("%"):
                out |= groups.get(w[1:], set())
            elif w in aliases:
                out |= expand(",".join(aliases[w]))
            else:
                out.add(w)
        return out

    for s in lines:
        if s.startswith("Defaults"):
            continue
        m = re.match(r"^User_Alias\s+([A-Z][A-Z0-9_]*)\s*=\s*(.+)$", s)
        if m:
            aliases[m.group(1)] = [x.strip() for x in m.group(2).split(",")]
            continue
        m = re.match(r"^(\S+(?:\s*,\s*\S+)*)\s+\S+\s*=\s*(?:\(([^)]*)\))?\s*(.*)$", s)
        if not m:
            continue
        who, runas, rest = m.group(1), m.group(2), m.group(3)
        runas_user = (runas or "root").split(":")[0].strip()
        if runas_user not in ("ALL", "root"):
            continue
        tags = re.findall(r"\b([A-Z_]+):", rest)
        cmds = re.sub(r"^(?:[A-Z_]+:\s*)+", "", rest).strip()
        if cmds != "ALL":
            continue
        members = expand(who) & set(users)
        all_cmd |= members
        if "NOPASSWD" in tags:
            nopasswd |= members

    report = {
        "uid0_accounts": sorted(u for u, (uid, _) in users.items() if uid == 0 and u != "root"),
        "empty_passwords": sorted(u for u in users if shadow.get(u) == ""),
        "sudo_all_nopasswd": sorted(nopasswd),
        "sudo_all": sorted(all_cmd),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
PY
chmod +x /app/audit.py
# step: run the audit on the snapshot
python3 /app/audit.py /app/snapshot > /app/audit.json
cat /app/audit.json
