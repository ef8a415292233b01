import os, stat, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def text_of(path):
    """The file's text, or None (and a failure) when it is missing."""
    if os.path.islink(path) or not os.path.isfile(path):
        fail(f"{path} is missing or not a regular file")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def lines_of(path):
    """The file's lines without trailing spaces (a missing final newline is tolerated), or None."""
    text = text_of(path)
    return None if text is None else [line.rstrip() for line in text.splitlines()]


def expect_lines(path, want):
    got = lines_of(path)
    want = [line.rstrip() for line in want]
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def expect_text(path, want):
    got = text_of(path)
    if got is not None and got != want:
        fail(f"{path} was changed")


def expect_no_extra(directory, names):
    extra = sorted(set(os.listdir(directory)) - set(names)) if os.path.isdir(directory) else []
    if extra:
        fail(f"unexpected new files in {directory}: {extra}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


ORIGINAL = '# Default values for catalog-api.\nreplicaCount: 1\n\nimage:\n  repository: registry.example.org/shop/catalog-api\n  tag: "2.8.1"\n  pullPolicy: IfNotPresent\n\nservice:\n  type: ClusterIP\n  port: 8080\n\nresources:\n  limits:\n    cpu: 500m\n    memory: 512Mi\n\nworker:\n  enabled: true\n  replicaCount: 1\n  queue: catalog-reindex\n\nautoscaling:\n  enabled: false\n  minReplicas: 1\n  maxReplicas: 5\n'
WANT = ORIGINAL.replace("\nreplicaCount: 1\n", "\nreplicaCount: 3\n", 1)
assert WANT != ORIGINAL
got = lines_of("/app/charts/catalog-api/values.yaml")
if got is not None and "  replicaCount: 3" in got:
    fail("the worker's replicaCount was changed too; it must stay 1")
expect_lines("/app/charts/catalog-api/values.yaml", WANT.splitlines())
expect_no_extra("/app/charts/catalog-api", ["values.yaml"])
finish()
