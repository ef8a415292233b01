import json, os, stat, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def lines_of(path):
    """The file's lines (a missing final newline is tolerated), or None when it is missing."""
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def json_of(path):
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except ValueError as exc:
        fail(f"{path} is not valid JSON: {exc}")
        return None


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def expect_lines(path, want):
    got = lines_of(path)
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


cur = "/app/site/current"
if not os.path.islink(cur):
    fail("/app/site/current is not a symlink")
elif os.readlink(cur) != "releases/2024.06.02":
    fail(f"/app/site/current -> {os.readlink(cur)!r}, expected 'releases/2024.06.02'")
for d in ("2024.05.01", "2024.05.14", "2024.06.02"):
    rd = "/app/site/releases/" + d
    if not os.path.isdir(rd) or os.path.islink(rd):
        fail(f"{rd} is missing")
        continue
    extra = sorted(set(os.listdir(rd)) - {"index.html", "bin"})
    if extra:
        fail(f"{rd} has new entries {extra} (a link was created inside the old release?)")
b = "/app/site/shared/bin"
have = set(os.listdir(b)) if os.path.isdir(b) else set()
for gone in ("seed", "reindex"):
    if gone in have:
        fail(f"dangling link {b}/{gone} is still there")
for name, target in (("migrate", "../../releases/2024.06.02/bin/migrate"),
                     ("warm-cache", "../../releases/2024.05.14/bin/warm-cache"),
                     ("warm-cache-new", "../../releases/2024.06.02/bin/warm-cache")):
    p = os.path.join(b, name)
    if not os.path.islink(p) or os.readlink(p) != target:
        fail(f"working link {p} was removed or changed")
if not os.path.isfile(os.path.join(b, "healthcheck")) or os.path.islink(os.path.join(b, "healthcheck")):
    fail("regular file shared/bin/healthcheck was removed")
finish()
