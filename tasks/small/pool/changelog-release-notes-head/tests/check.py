import os, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def lines_of(path):
    """The file's lines with trailing spaces cut (a missing final newline is tolerated), or None when missing."""
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.rstrip() for line in f.read().splitlines()]


def expect_lines(path, want):
    got = lines_of(path)
    want = [line.rstrip() for line in want]
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


def expect_bytes(path, want):
    if not os.path.isfile(path):
        fail(f"{path} is missing")
    elif open(path, "rb").read() != want:
        fail(f"{path} does not have the expected content")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


expect_lines("/app/docs/release-notes.md", ['## 3.2.0 - 2024-06-10', '- Added CSV export for invoices', '- Added a dark theme to the settings page', '- Fixed rounding of cart totals with three or more discounts', '- Fixed a crash when an avatar upload is empty', '- Removed the deprecated /v1/legacy endpoint', '- Updated the bundled timezone data to 2024a'])
expect_lines("/app/docs/CHANGELOG.md", ['## 3.2.0 - 2024-06-10', '- Added CSV export for invoices', '- Added a dark theme to the settings page', '- Fixed rounding of cart totals with three or more discounts', '- Fixed a crash when an avatar upload is empty', '- Removed the deprecated /v1/legacy endpoint', '- Updated the bundled timezone data to 2024a', '', '## 3.1.2 - 2024-05-21', '- Fixed login redirect loop behind the corporate proxy', '- Fixed missing translations in the Dutch locale', '', '## 3.1.1 - 2024-05-02', '- Fixed the PDF invoice footer overlapping the totals', '', '## 3.1.0 - 2024-04-15', '- Added two-factor authentication with TOTP apps', '- Added bulk archive for old orders', '- Changed the default page size from 20 to 50', '', '## 3.0.0 - 2024-03-01', '- Removed support for Python 3.8', '- Changed the API base path to /v2'])
finish()
