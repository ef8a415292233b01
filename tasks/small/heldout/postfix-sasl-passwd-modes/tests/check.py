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


D = "/app/etc/postfix/"
ORIGINAL = {"main.cf": 'myhostname = web01.example.net\nrelayhost = [smtp.relay.example.com]:587\nsmtp_sasl_auth_enable = yes\nsmtp_sasl_password_maps = hash:/etc/postfix/sasl_passwd\nsmtp_sasl_security_options = noanonymous\nsmtp_tls_security_level = encrypt\n', "sasl_passwd": '[smtp.relay.example.com]:587 webshop-mailer:Relay-Pass-0041\n', "sasl_passwd.db": 'postmap hash table for sasl_passwd (built 2024-06-03)\n'}
for name, want in (("sasl_passwd", 0o600), ("sasl_passwd.db", 0o600), ("main.cf", 0o644)):
    expect_mode(D + name, want)
    expect_text(D + name, ORIGINAL[name])
expect_no_extra(D, list(ORIGINAL))
finish()
