#!/bin/bash
set -e
# step[easy-to-miss]: write bootorder.py (.wants/.requires dirs are the enablement; [Install] is ignored; targets order after their deps)
cat > /app/bootorder.py <<'PY'
#!/usr/bin/env python3
"""Compute the start order of the units pulled in by a target."""
import heapq
import os
import sys

DEP_KEYS = ("Requires", "Wants", "After", "Before")


def parse_into(path, deps):
    section = None
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("[") and line.endswith("]"):
                section = line[1:-1]
                continue
            if section != "Unit" or "=" not in line:
                continue
            key, _, val = line.partition("=")
            key = key.strip()
            if key in DEP_KEYS:
                deps[key].extend(val.split())


def load_unit(unitdir, name):
    path = os.path.join(unitdir, name)
    if not os.path.isfile(path):
        return None
    deps = {k: [] for k in DEP_KEYS}
    parse_into(path, deps)
    dropdir = os.path.join(unitdir, name + ".d")
    if os.path.isdir(dropdir):
        for fn in sorted(os.listdir(dropdir)):
            if fn.endswith(".conf"):
                parse_into(os.path.join(dropdir, fn), deps)
    for suffix, key in ((".wants", "Wants"), (".requires", "Requires")):
        d = os.path.join(unitdir, name + suffix)
        if os.path.isdir(d):
            deps[key].extend(sorted(os.listdir(d)))
    return deps


def main():
    unitdir, target = sys.argv[1], sys.argv[2]
    units = {}
    todo = [target]
    while todo:
        name = todo.pop()
        if name in units:
            continue
        deps = load_unit(unitdir, name)
        if deps is None:
            continue
        units[name] = deps
        todo.extend(deps["Requires"] + deps["Wants"])
    edges = {u: set() for u in units}   # u -> units that must start after u
    for u, d in units.items():
        for v in d["After"]:
            if v in units and v != u:
                edges[v].add(u)
        for v in d["Before"]:
            if v in units and v != u:
                edges[u].add(v)
        if u.endswith(".target"):
            for v in d["Requires"] + d["Wants"]:
                if v in units and v != u:
                    edges[v].add(u)
    indeg = {u: 0 for u in units}
    for u in edges:
        for v in edges[u]:
            indeg[v] += 1
    ready = [u for u, n in indeg.items() if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        u = heapq.heappop(ready)
        order.append(u)
        for v in edges[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                heapq.heappush(ready, v)
    if len(order) != len(units):
        stuck = sorted(u for u in units if u not in order)
        print("ordering cycle between: " + " ".join(stuck), file=sys.stderr)
        sys.exit(1)
    print("\n".join(order))


if __name__ == "__main__":
    main()
PY
chmod +x /app/bootorder.py
# step: compute the boot order for multi-user.target
python3 /app/bootorder.py /app/units multi-user.target > /app/boot-order.txt
