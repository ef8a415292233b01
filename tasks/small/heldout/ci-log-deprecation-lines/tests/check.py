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


ORIGINAL = "[build 1432] checkout 4f9c2e1 on agent linux-07\n[build 1432] npm ci\nnpm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.\nnpm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported\nadded 812 packages in 41s\n[build 1432] npm run build\n> storefront@0.9.4 build\n> webpack --mode production\nasset main.4e1f.js 412 KiB [emitted] [minimized]\nWARNING in ./src/legacy/dates.js: 'moment().zone()' is Deprecated, use utcOffset()\nwebpack compiled with 1 warning\n[build 1432] gcc -O2 -c native/hash.c\nnative/hash.c:88:5: warning: 'MD5_Init' is deprecated: Since OpenSSL 3.0 [-Wdeprecated-declarations]\nnative/hash.c:91:5: warning: 'MD5_Update' is deprecated: Since OpenSSL 3.0 [-Wdeprecated-declarations]\nnative/hash.c:140:9: warning: unused variable 'tmp' [-Wunused-variable]\n[build 1432] python -m pytest -q\n........................................................................ [ 85%]\ntests/test_api.py:12: DeprecationWarning: datetime.utcnow() is deprecated and scheduled for removal\n............                                                             [100%]\n84 passed, 1 warning in 6.21s\n[build 1432] docker build -t storefront:1432 .\nDEPRECATED: The legacy builder will be removed in a future release; install buildx.\nStep 1/9 : FROM node:20-slim\nSuccessfully built 7a3c91d0e2f4\n[build 1432] finished: SUCCESS (4 warnings treated as non-fatal)\n"
expect_lines("/app/ci/deprecations.txt", ['npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.', 'npm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported', "WARNING in ./src/legacy/dates.js: 'moment().zone()' is Deprecated, use utcOffset()", "native/hash.c:88:5: warning: 'MD5_Init' is deprecated: Since OpenSSL 3.0 [-Wdeprecated-declarations]", "native/hash.c:91:5: warning: 'MD5_Update' is deprecated: Since OpenSSL 3.0 [-Wdeprecated-declarations]", 'tests/test_api.py:12: DeprecationWarning: datetime.utcnow() is deprecated and scheduled for removal', 'DEPRECATED: The legacy builder will be removed in a future release; install buildx.'])
expect_text("/app/ci/build-1432.log", ORIGINAL)
finish()
