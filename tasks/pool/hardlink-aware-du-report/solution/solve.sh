#!/bin/bash
set -e
# step[easy-to-miss]: write dusage.py; use lstat and skip symlinks everywhere (never follow them)
cat > /app/dusage.py <<'PY'
#!/usr/bin/env python3
import json, os, stat, sys

def main():
    root = sys.argv[1]
    seen = set()
    dirs = {}
    total = 0

    def charge(key, path):
        nonlocal total
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            return
        ident = (st.st_dev, st.st_ino)
        if ident in seen:
            return
        seen.add(ident)
        dirs[key] = dirs.get(key, 0) + st.st_size
        total += st.st_size

    entries = sorted(os.listdir(root))
    top_files = [e for e in entries if stat.S_ISREG(os.lstat(os.path.join(root, e)).st_mode)]
    top_dirs = [e for e in entries if stat.S_ISDIR(os.lstat(os.path.join(root, e)).st_mode)]
    if top_files:
        dirs["."] = 0
        for e in top_files:
            charge(".", os.path.join(root, e))
    for d in top_dirs:
        dirs[d] = 0
        for dp, dns, fns in os.walk(os.path.join(root, d), followlinks=False):
            dns.sort()
            for fn in sorted(fns):
                charge(d, os.path.join(dp, fn))
    print(json.dumps({"total_bytes": total, "unique_files": len(seen), "dirs": dirs}, indent=2))

main()
PY
chmod +x /app/dusage.py
# step: write the report for /app/backups
python3 /app/dusage.py /app/backups > /app/usage.json
