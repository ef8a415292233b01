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

import tarfile

ARC = "/app/dist/bundle.tar"
KEEP = {
    "pkg/README.md": "# tool\n\nRun `bin/tool.sh --help` for the options.\n",
    "pkg/bin/tool.sh": '#!/bin/bash\necho "tool 1.8.0"\n',
    "pkg/CHANGELOG.md": "## 1.8.0\n- new --dry-run flag\n",
}
LICENSE = ("MIT License\n\nCopyright (c) 2024 Tool Authors\n\n"
           "Permission is hereby granted, free of charge, to any person obtaining a copy\n"
           "of this software, to deal in the Software without restriction.\n")


def check():
    if os.path.islink(ARC) or not os.path.isfile(ARC):
        return fail(f"{ARC} is missing")
    try:
        with tarfile.open(ARC, "r:") as t:
            files = {}
            for m in t.getmembers():
                name = m.name.removeprefix("./")
                if m.isfile():
                    files[name] = t.extractfile(m).read().decode("utf-8", "replace")
                elif not m.isdir():
                    fail(f"unexpected member {m.name!r} (not a file or directory)")
    except (OSError, tarfile.TarError, EOFError) as e:
        return fail(f"{ARC} is not a readable uncompressed tar archive: {e}")
    lost = sorted(n for n in KEEP if n not in files)
    if lost:
        return fail(f"members that were in the archive are gone: {lost} (the archive must not be rebuilt)")
    for name, text in KEEP.items():
        if files[name] != text:
            fail(f"{name} in the archive was changed")
    if "pkg/LICENSE" not in files:
        fail(f"the archive has no member pkg/LICENSE; its files are {sorted(files)}")
    elif files["pkg/LICENSE"] != LICENSE:
        fail("pkg/LICENSE in the archive does not hold the content of /app/pkg/LICENSE")
    extra = sorted(set(files) - set(KEEP) - {"pkg/LICENSE"})
    if extra:
        fail(f"unexpected files in the archive: {extra}")


check()
finish()
