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


base = "/app/home/dev/.ssh"
for name, want in sorted({'': 448, 'id_ed25519': 384, 'id_rsa_legacy': 384, 'config': 384, 'authorized_keys': 384, 'id_ed25519.pub': 420, 'id_rsa_legacy.pub': 420, 'known_hosts': 420}.items()):
    expect_mode(os.path.join(base, name) if name else base, want)
want_text = {'home/dev/.ssh/id_ed25519': '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n', 'home/dev/.ssh/id_ed25519.pub': 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTests dev@laptop\n', 'home/dev/.ssh/id_rsa_legacy': '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ\n-----END OPENSSH PRIVATE KEY-----\n', 'home/dev/.ssh/id_rsa_legacy.pub': 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABFakeLegacy dev@laptop\n', 'home/dev/.ssh/config': 'Host build\n    HostName 10.0.8.4\n    User dev\n    IdentityFile ~/.ssh/id_ed25519\n', 'home/dev/.ssh/known_hosts': '10.0.8.4 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeHostKey\n', 'home/dev/.ssh/authorized_keys': 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTests dev@laptop\n'}
for rel, text in want_text.items():
    p = "/app/" + rel
    if os.path.isfile(p) and open(p).read() != text:
        fail(f"{p} content changed")
finish()
