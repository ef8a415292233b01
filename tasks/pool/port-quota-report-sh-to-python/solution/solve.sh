#!/bin/bash
set -e
# step: write the Python port (same parsing, rounding, sorting, warnings and exit codes)
cat > /app/bin/quota_report.py <<'PY'
#!/usr/bin/env python3
"""Python port of quota_report.sh: per-user disk usage against quotas."""
import os
import re
import sys


def human(b, base):
    units = "BKMGTP"
    i = 0
    while b >= base and i < 5:
        b /= base
        i += 1
    if i == 0:
        return "%d%s" % (int(b), units[i])
    return "%.1f%s" % (b, units[i])


NUM_PREFIX = re.compile(r"^[ \t\n\f\r\v]*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def awk_num(s):
    """awk's string-to-number conversion: longest numeric prefix, else 0."""
    m = NUM_PREFIX.match(s)
    return float(m.group(0)) if m else 0.0


def parse_limit(s, base):
    suf = s[-1:].upper()
    m = "KMGTP".find(suf) + 1 if suf else 0
    if m == 0:
        return awk_num(s)
    return awk_num(s[:-1]) * (base ** m)


def main(argv):
    if len(argv) != 2:
        print("usage: quota_report.sh USAGE_CSV QUOTAS", file=sys.stderr)
        return 2
    usage_csv, quotas_path = argv
    for f in (usage_csv, quotas_path):
        if not (os.path.isfile(f) or os.path.exists(f)) or not os.access(f, os.R_OK):
            print(f"quota_report: cannot read {f}", file=sys.stderr)
            return 2
    base = 1000 if os.environ.get("QUOTA_UNITS", "iec") == "si" else 1024

    quota = {}
    with open(quotas_path, "rb") as fh:
        for raw in fh.read().decode("utf-8", "surrogateescape").split("\n"):
            line = raw.split("#", 1)[0]
            fields = line.split()
            if len(fields) >= 2:
                quota[fields[0]] = parse_limit(fields[1], base)

    used, paths, bad = {}, {}, 0
    with open(usage_csv, "rb") as fh:
        lines = fh.read().decode("utf-8", "surrogateescape").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for lineno, line in enumerate(lines, start=1):
        if lineno == 1:
            continue
        if line.endswith("\r"):
            line = line[:-1]
        if re.fullmatch(r"[ \t]*", line):
            continue
        f = line.split(",")
        if len(f) != 3 or not re.fullmatch(r"[0-9]+", f[2]):
            sys.stdout.flush()
            print(f"quota_report: line {lineno}: skipped malformed record", file=sys.stderr)
            bad += 1
            continue
        used[f[0]] = used.get(f[0], 0.0) + float(int(f[2]))
        paths[f[0]] = paths.get(f[0], 0) + 1

    rows = []
    over = total = 0
    for u, b in used.items():
        total += b
        q = quota.get(u, 0)
        if u in quota and q > 0:
            pct = int(b * 100 / q)
            st = "OVER" if b > q else ("WARN" if pct >= 80 else "OK")
            if st == "OVER":
                over += 1
            text = "%-12s %8s %8s %6s  %-7s %d" % (u, human(b, base), human(q, base), f"{pct}%", st, paths[u])
            rows.append(((0, "%06d" % (999999 - pct), u), text))
        else:
            text = "%-12s %8s %8s %6s  %-7s %d" % (u, human(b, base), "-", "-", "NOQUOTA", paths[u])
            rows.append(((1, "000000", u), text))
    rows.sort(key=lambda r: (r[0][0], r[0][1], r[0][2].encode("utf-8", "surrogateescape")))
    out = ["%-12s %8s %8s %6s  %-7s %s" % ("USER", "USED", "QUOTA", "USE%", "STATUS", "PATHS")]
    out += [t for _, t in rows]
    out.append("-" * 54)
    out.append("%-12s %8s   %d users, %d over quota, %d skipped" % ("total", human(total, base), len(used), over, bad))
    sys.stdout.write("\n".join(out) + "\n")
    return 1 if over > 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
PY
# step[easy-to-miss]: cron runs it directly: make it executable
chmod 755 /app/bin/quota_report.py
/app/bin/quota_report.py /app/samples/usage.csv /app/samples/quotas.txt || true
