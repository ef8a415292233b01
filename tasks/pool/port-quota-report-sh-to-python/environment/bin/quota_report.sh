#!/bin/bash
# quota_report.sh USAGE_CSV QUOTAS
# Summarise per-user disk usage (CSV: user,path,bytes with a header line) against
# per-user quotas (lines "user limit", limit like 500M, 2G, 1.5T; '#' comments).
# QUOTA_UNITS=si uses powers of 1000, anything else powers of 1024.
# Exit status: 0 ok, 1 if any user is over quota, 2 on usage errors.
set -u
export LC_ALL=C

if [ $# -ne 2 ]; then
    echo "usage: quota_report.sh USAGE_CSV QUOTAS" >&2
    exit 2
fi
usage_csv=$1
quotas=$2
for f in "$usage_csv" "$quotas"; do
    if [ ! -r "$f" ]; then
        echo "quota_report: cannot read $f" >&2
        exit 2
    fi
done
if [ "${QUOTA_UNITS:-iec}" = si ]; then base=1000; else base=1024; fi

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

awk -v base="$base" -v tmp="$tmp" '
function human(b,    i, u) {
    split("B K M G T P", u, " ")
    i = 1
    while (b >= base && i < 6) { b /= base; i++ }
    if (i == 1) return sprintf("%d%s", b, u[i])
    return sprintf("%.1f%s", b, u[i])
}
function parse_limit(s,    n, suf, m) {
    suf = toupper(substr(s, length(s)))
    n = substr(s, 1, length(s) - 1)
    m = index("KMGTP", suf)
    if (m == 0) return s + 0
    return n * (base ^ m)
}
FNR == NR {
    sub(/#.*/, "")
    if (NF >= 2) quota[$1] = parse_limit($2)
    next
}
FNR == 1 { next }
{
    line = $0
    sub(/\r$/, "", line)
    if (line ~ /^[ \t]*$/) next
    n = split(line, f, ",")
    if (n != 3 || f[3] !~ /^[0-9]+$/) {
        printf "quota_report: line %d: skipped malformed record\n", FNR > "/dev/stderr"
        bad++
        next
    }
    used[f[1]] += f[3]
    paths[f[1]]++
}
END {
    over = 0; users = 0; total = 0
    for (u in used) {
        users++
        total += used[u]
        if (u in quota && quota[u] > 0) {
            pct = int(used[u] * 100 / quota[u])
            st = (used[u] > quota[u]) ? "OVER" : (pct >= 80 ? "WARN" : "OK")
            if (st == "OVER") over++
            printf "0\t%06d\t%s\t%-12s %8s %8s %6s  %-7s %d\n", 999999 - pct, u, u, human(used[u]), human(quota[u]), pct "%", st, paths[u] > tmp
        } else {
            printf "1\t000000\t%s\t%-12s %8s %8s %6s  %-7s %d\n", u, u, human(used[u]), "-", "-", "NOQUOTA", paths[u] > tmp
        }
    }
    close(tmp)
    printf "%-12s %8s %8s %6s  %-7s %s\n", "USER", "USED", "QUOTA", "USE%", "STATUS", "PATHS"
    while ((("sort -t \"\t\" -k1,1 -k2,2 -k3,3 " tmp) | getline row) > 0) {
        split(row, parts, "\t")
        print parts[4]
    }
    print "------------------------------------------------------"
    printf "%-12s %8s   %d users, %d over quota, %d skipped\n", "total", human(total), users, over, bad + 0
    exit (over > 0 ? 1 : 0)
}
' "$quotas" "$usage_csv"
