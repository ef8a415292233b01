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


def expect_lines(path, want, got=...):
    got = lines_of(path) if got is ... else got
    want = [line.rstrip() for line in want]
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


def expect_text(path, want):
    got = text_of(path)
    if got is not None and got != want:
        fail(f"{path} was changed")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


ORIGINAL = 'global\n    log /dev/log local0\n    maxconn 4096\n    user haproxy\n    group haproxy\n\ndefaults\n    log global\n    mode http\n    option httplog\n    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\n\nfrontend shop_http\n    bind *:80\n    default_backend shop_web\n\nbackend shop_web\n    balance roundrobin\n    option httpchk GET /healthz\n    server web1 10.0.3.11:8080 check\n    server web2 10.0.3.12:8080 check\n    server web10 10.0.3.20:8080 check\n    server web11 10.0.3.21:8080 check\n\nbackend shop_static\n    server cdn1 10.0.4.5:8081 check\n'
WEB1 = '    server web1 10.0.3.11:8080 check'
CFG = "/app/etc/haproxy/haproxy.cfg"
want = ORIGINAL.splitlines()
got = lines_of(CFG)
if got is not None:
    if len(got) != len(want):
        fail(f"{CFG}: {len(got)} lines, expected {len(want)} (no line may be added or removed)")
    else:
        for i, (g, w) in enumerate(zip(got, want), 1):
            if w == WEB1:
                body = g.strip()
                if not body.startswith("#"):
                    fail(f"{CFG}:{i}: the web1 server line is still active: {g!r}")
                elif body.lstrip("#").strip() != WEB1.strip() or body.count("#") != 1:
                    fail(f"{CFG}:{i}: expected the web1 line behind a single '#', got {g!r}")
            elif g != w.rstrip():
                if "web1" in w:
                    fail(f"{CFG}:{i}: {w.strip()!r} must stay active and unchanged, got {g!r}")
                else:
                    fail(f"{CFG}:{i}: expected {w!r}, got {g!r}")
finish()
