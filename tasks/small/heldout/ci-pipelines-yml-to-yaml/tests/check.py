import os, stat, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def bytes_of(path):
    """The file's bytes, or None (and a failure) when it is missing or not a regular file."""
    if os.path.islink(path) or not os.path.isfile(path):
        fail(f"{path} is missing or not a regular file")
        return None
    with open(path, "rb") as f:
        return f.read()


def expect_bytes(path, want):
    got = bytes_of(path)
    if got is not None and got != want:
        fail(f"{path} does not have the expected content")


def expect_absent(path):
    if os.path.lexists(path):
        fail(f"{path} should not exist any more")


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


BUILD = b'name: build\non: [push]\nsteps:\n  - run: make all\n  - run: make dist\n'
TEST = b'name: test\non: [push, pull_request]\nsteps:\n  - run: make test\n'
DEPLOY = b"name: deploy\non:\n  tags: ['v*']\nsteps:\n  - run: ./scripts/deploy.sh production\n"
README = b'# Pipelines\n\nOne file per pipeline. The runner picks up every *.yaml file in this directory.\n'

D = "/app/ci/pipelines"
for name, want in (("build", BUILD), ("test", TEST), ("deploy", DEPLOY)):
    expect_bytes(f"{D}/{name}.yaml", want)
    expect_absent(f"{D}/{name}.yml")
expect_bytes(D + "/README.md", README)
have = sorted(os.listdir(D)) if os.path.isdir(D) else []
if have != ["README.md", "build.yaml", "deploy.yaml", "test.yaml"]:
    fail(f"{D} holds {have}, expected README.md, build.yaml, deploy.yaml and test.yaml")
finish()
