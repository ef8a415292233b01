import os, stat, sys

root = "/app/srv/projects"
fails = []
expected_paths = {
    ".", "alpha", "alpha/README.md", "alpha/bin", "alpha/bin/deploy", "alpha/build.sh", "alpha/lib",
    "alpha/lib/helpers.sh", "beta", "beta/data.csv", "beta/private", "beta/private/creds.env",
    "beta/private/old", "beta/private/old/key-2022.pem", "beta/private/rotate-keys", "docs", "docs/img",
    "docs/img/logo.png", "docs/index.md", "docs/tools-link", "gamma", "gamma/not-a-script.txt",
    "gamma/private.txt", "gamma/report.txt", "gamma/tool",
}
# explicit expectations (independent of the rule engine below)
explicit = {
    ".": 0o2775, "alpha": 0o2775, "alpha/bin": 0o2775, "alpha/bin/deploy": 0o775, "alpha/build.sh": 0o775,
    "alpha/lib/helpers.sh": 0o664, "alpha/README.md": 0o664, "beta": 0o2775, "beta/data.csv": 0o664,
    "beta/private": 0o2770, "beta/private/old": 0o2770, "beta/private/creds.env": 0o660,
    "beta/private/rotate-keys": 0o770, "beta/private/old/key-2022.pem": 0o660, "docs": 0o2775,
    "docs/img": 0o2775, "docs/img/logo.png": 0o664, "docs/index.md": 0o664, "gamma": 0o2775,
    "gamma/not-a-script.txt": 0o664, "gamma/private.txt": 0o664, "gamma/report.txt": 0o664,
}
found = set()
for dp, dns, fns in os.walk(root):
    for n in [""] + dns + fns:
        p = os.path.join(dp, n) if n else dp
        rel = os.path.relpath(p, root)
        if n == "" and dp != root:
            continue
        found.add(rel)
        st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode):
            continue
        mode = stat.S_IMODE(st.st_mode)
        if mode & 0o002:
            fails.append(f"{rel} is world-writable ({oct(mode)})")
        if rel in explicit and mode != explicit[rel]:
            fails.append(f"{rel}: mode {oct(mode)} expected {oct(explicit[rel])}")
missing = expected_paths - found
if missing:
    fails.append(f"missing paths: {sorted(missing)}")
extra = found - expected_paths
if extra:
    fails.append(f"unexpected new paths: {sorted(extra)}")
for l, tgt in (("gamma/tool", "/app/tools/outside.sh"), ("docs/tools-link", "../../../tools")):
    p = os.path.join(root, l)
    if not os.path.islink(p) or os.readlink(p) != tgt:
        fails.append(f"symlink {l} changed")
m = stat.S_IMODE(os.stat("/app/tools/outside.sh").st_mode)
if m != 0o700:
    fails.append(f"/app/tools/outside.sh mode changed to {oct(m)} (symlink was followed)")
m = stat.S_IMODE(os.stat("/app/tools").st_mode)
if m & 0o2000 or m & 0o002:
    fails.append(f"/app/tools mode changed to {oct(m)} (symlink was followed)")
with open(os.path.join(root, "beta/private/creds.env")) as f:
    if f.read() != "DB_PASSWORD=hunter2-beta\n":
        fails.append("creds.env content changed")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
