#!/bin/bash
set -e
# step: collect the log lines from all three files, oldest first
mkdir -p /tmp/ir
{ zcat /app/logs/auth.log.2.gz; cat /app/logs/auth.log.1 /app/logs/auth.log; } > /tmp/ir/all.log
# step[easy-to-miss]: count failures per IP, expanding "message repeated N times" lines, and build the report
python3 - <<'PY'
import json, re
from collections import Counter
from datetime import datetime
fail_re = re.compile(r"Failed password for (?:invalid user )?\S+ from (\S+) port")
rep_re = re.compile(r"message repeated (\d+) times: \[ ?Failed password for (?:invalid user )?\S+ from (\S+) port")
acc_re = re.compile(r"Accepted (\S+) for (\S+) from (\S+) port")
fails = Counter()
accepted = []
for line in open("/tmp/ir/all.log"):
    ts = datetime.strptime("2024 " + line[:15], "%Y %b %d %H:%M:%S")
    m = rep_re.search(line)
    if m:
        fails[m.group(2)] += int(m.group(1)); continue
    m = fail_re.search(line)
    if m:
        fails[m.group(1)] += 1; continue
    m = acc_re.search(line)
    if m:
        accepted.append((ts, m.group(2), m.group(3), m.group(1)))
attackers = sorted(((ip, n) for ip, n in fails.items() if n >= 10), key=lambda x: (-x[1], x[0]))
bad = {ip for ip, _ in attackers}
comp = sorted((a for a in accepted if a[2] in bad), key=lambda a: a[0])
report = {"attackers": [{"ip": ip, "failed_attempts": n} for ip, n in attackers],
          "compromised": [{"user": u, "ip": ip, "time": ts.strftime("%Y-%m-%dT%H:%M:%S"), "method": meth} for ts, u, ip, meth in comp]}
json.dump(report, open("/app/incident.json", "w"), indent=2)
open("/tmp/ir/attackers.txt", "w").write("".join(ip + "\n" for ip, _ in attackers))
PY
cat /app/incident.json
# step: append the missing attackers to hosts.deny
while read -r ip; do
  case "$ip" in *:*) entry="sshd: [$ip]" ;; *) entry="sshd: $ip" ;; esac
  grep -qxF "$entry" /app/etc/hosts.deny || echo "$entry" >> /app/etc/hosts.deny
done < /tmp/ir/attackers.txt
cat /app/etc/hosts.deny
