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


ORIGINAL = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIObYfZssKymSV744Jic4lRVsHY58KluI/a/EyjxonEDS ops-oncall@bastion\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIP5dnIhEIUd5wp4IEj1HXzwZd1dVBnbIP7yYt5Nzb30+ builder@ci-agent-1\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOZAcRexYJjuV//F9N/yceBKZy7wKgfLrU0NJVKb8KHQ builder@ci-agent-2\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBy9BjID2721IngZZxPOxGTD4tqlnaIzVpvQga9ITZps builder@ci-agent-11\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEKAJQ/J2yBWE25MoYjTd+5IWZLbUidugpZJ5N98ZPQk builder@ci-agent-12\nssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDom0j3st2N/V+wG9cMC9efdmf2PL9Jgi3SMjeOxaZLnm9qRlwM3rMU9XPUEP/vRkqZJTgqH0TLOabuuCm+eWxJRYtGboVCvXYlQW/n0G0Z51rSmDvJgy4M7GwUi8iMNxog8LIkBr2q+xVSfQZ8zdgJb7yF8dG65cRT3z8qQwm71P0E02Tj1MoWaB9H/+rjWHbf5x3cbkSw7P/6TeYEL9HQidFicSl5SFF6bmG9KEpFe8N1u1EczFmjCoBjQjh4kyZbOyroOxUH7Ki79NriSCwdxA26vkaRsJ+1sCWANojuF9oDysEXz6VtMKqCbfHw9/4F7eClu/bU0WThiw0cqRBj release-bot@jenkins\n'
AK = "/app/home/deploy/.ssh/authorized_keys"
want = [line for line in ORIGINAL.splitlines() if not line.endswith(" builder@ci-agent-1")]
assert len(want) == len(ORIGINAL.splitlines()) - 1
got = lines_of(AK)
if got is not None:
    for agent in ("builder@ci-agent-11", "builder@ci-agent-12"):
        if not any(line.endswith(" " + agent) for line in got):
            fail(f"{AK}: the key of {agent} was removed too; it must stay")
    if any(line.endswith(" builder@ci-agent-1") for line in got):
        fail(f"{AK}: the key of builder@ci-agent-1 is still there")
expect_lines(AK, want, got)
finish()
