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

import tempfile


def git(repo, *args):
    try:
        r = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as e:
        fail(f"git {' '.join(args)}: {e!r}")
        return None
    if r.returncode:
        fail(f"git {' '.join(args)} in {repo}: {r.stderr.strip()}")
        return None
    return r.stdout


def original():
    """A fresh build of the repository as it was before the agent ran."""
    tmp = tempfile.mkdtemp(prefix="orig-")
    subprocess.run(["bash", "/tests/build_repo.sh", tmp], check=True, capture_output=True)
    return os.path.join(tmp, "mailer")


R = "/app/mailer"
SETTINGS = ('[smtp]\nhost = "smtp.mailer.example"\nport = 587\nstarttls = true\n\n[sender]\n'
            'address = "news@mailer.example"\nname = "Mailer News"\nreply_to = "support@mailer.example"\n')
WELCOME = ("Hello {name},\n\nwelcome to our newsletter! Your first issue arrives on Monday.\n\n"
           "Cheers,\nThe Mailer team\n")


def check():
    if not os.path.isdir(R + "/.git"):
        return fail(f"{R} is no longer a git repository")
    if git(R, "rev-parse", "HEAD") != git(original(), "rev-parse", "HEAD"):
        fail("HEAD moved: nothing may be committed or reset")
    expect_text(R + "/config/settings.toml", SETTINGS)
    welcome = text_of(R + "/templates/welcome.txt")
    if welcome is not None and welcome != WELCOME:
        fail("the uncommitted edits in templates/welcome.txt were lost or changed")
    status = git(R, "status", "--porcelain", "--untracked-files=all")
    if status is not None and status.splitlines() != [" M templates/welcome.txt"]:
        fail(f"git status should show only the unstaged edit of templates/welcome.txt, got {status.splitlines()}")
    stash = git(R, "stash", "list")
    if stash:
        fail("something was stashed")


check()
finish()
