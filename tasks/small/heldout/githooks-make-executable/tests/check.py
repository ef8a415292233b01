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


D = "/app/devtools/githooks/"
ORIGINAL = {'pre-commit': "#!/bin/sh\n# Refuse commits that still contain merge markers.\nif git diff --cached | grep -q '^+<<<<<<<'; then\n  echo 'merge markers left in staged changes' >&2\n  exit 1\nfi\n", 'commit-msg': '#!/bin/sh\n# Require a ticket id like ABC-123 in the commit message.\ngrep -qE \'[A-Z]+-[0-9]+\' "$1" || { echo \'commit message needs a ticket id\' >&2; exit 1; }\n', 'pre-push': '#!/bin/sh\n# Run the quick test suite before pushing.\nmake -s test-quick\n', 'pre-commit.sample': '#!/bin/sh\n# Example: run a linter on staged files.\n# exec lint-staged\n', 'pre-rebase.sample': '#!/bin/sh\n# Example: forbid rebasing published branches.\nexit 0\n', 'README.md': 'Shared git hooks. Install with: git config core.hooksPath /app/devtools/githooks\n'}
for name, text in ORIGINAL.items():
    expect_mode(D + name, 0o755 if name in ("pre-commit", "commit-msg", "pre-push") else 0o644)
    expect_text(D + name, text)
expect_no_extra(D, list(ORIGINAL))
finish()
