import json, sys

fails = []
exp = json.load(open("/tests/expected_incident.json"))
try:
    got = json.load(open("/app/incident.json"))
    if got.get("attackers") != exp["attackers"]:
        fails.append(f"attackers: got {got.get('attackers')}")
    gc = [{k: c.get(k) for k in ("user", "ip", "time", "method")} for c in got.get("compromised", [])]
    if gc != exp["compromised"]:
        fails.append(f"compromised: got {gc}")
except Exception as e:
    fails.append(f"/app/incident.json: {e!r}")

try:
    lines = [l.rstrip("\n") for l in open("/app/etc/hosts.deny")]
    original = ["# /etc/hosts.deny: list of hosts that are _not_ allowed to access the system.",
                "#                  See the manual pages hosts_access(5) and hosts_options(5).",
                "ALL: 10.9.9.9", "sshd: 203.0.113.45"]
    if lines[:4] != original:
        fails.append("existing hosts.deny lines were changed")
    added = [l.strip() for l in lines[4:] if l.strip()]
    want = {"sshd: 198.51.100.7", "sshd: [2001:db8:4::17]", "sshd: 192.0.2.99", "sshd: 198.51.100.200"}
    if len(added) != len(set(added)) or set(added) != want:
        fails.append(f"hosts.deny additions: got {added}, want {sorted(want)}")
except Exception as e:
    fails.append(f"hosts.deny: {e!r}")

for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
