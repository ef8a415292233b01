import json, os, stat, subprocess, sys

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


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")

FLAGS_JSON = ('{\n  "service": "checkout",\n  "updated": "2024-06-01",\n  "flags": {\n'
              '    "new_checkout": {"enabled": true, "rollout": 25},\n'
              '    "apple_pay": {"enabled": false, "rollout": 0},\n'
              '    "saved_carts": {"enabled": true, "rollout": 100},\n'
              '    "gift_cards": {"enabled": true, "rollout": 50},\n'
              '    "express_shipping": {"enabled": false, "rollout": 10},\n'
              '    "dark_mode": {"enabled": true, "rollout": 100}\n  },\n'
              '  "owners": {"payments": "ana", "frontend": "bo"}\n}\n')
WANT = ["new_checkout", "apple_pay", "saved_carts", "gift_cards", "express_shipping", "dark_mode"]

lines = lines_of("/app/flag_names.txt")
if lines is not None:
    got = [line.strip() for line in lines if line.strip()]
    if got != WANT:
        if got == sorted(WANT):
            fail("flag_names.txt is sorted alphabetically; the names must keep the order of flags.json")
        else:
            fail(f"flag_names.txt holds {got[:10]!r}, expected {WANT!r}")
expect_text("/app/config/flags.json", FLAGS_JSON)
finish()
