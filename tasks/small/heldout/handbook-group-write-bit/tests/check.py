import os, stat, sys

FAILS = []
D = "/app/team/handbook"
# Each entry's mode before the task, plus the group-write bit.
WANT = {
    ".": 0o775,
    "README.md": 0o664,
    "onboarding.md": 0o664,
    "oncall.md": 0o660,
    "salary-bands.md": 0o620,
    "build-site.sh": 0o775,
    "glossary.md": 0o464,
}


def fail(msg):
    FAILS.append(msg)


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


for name, want in WANT.items():
    path = os.path.normpath(os.path.join(D, name))
    if not os.path.lexists(path):
        fail(f"{path} is missing")
        continue
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        fail(f"{path} became a symlink")
    elif (name == ".") != stat.S_ISDIR(st.st_mode):
        fail(f"{path} changed its type")
    elif stat.S_IMODE(st.st_mode) != want:
        fail(f"{path}: mode {stat.S_IMODE(st.st_mode):04o}, expected {want:04o}")
finish()
