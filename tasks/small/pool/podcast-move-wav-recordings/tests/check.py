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


WAV = {'interview-anna.wav': 'RIFF....WAVEfmt placeholder: interview with Anna, 41 min\n', 'interview-marek.wav': 'RIFF....WAVEfmt placeholder: interview with Marek, 37 min\n', 'intro-jingle.wav': 'RIFF....WAVEfmt placeholder: intro jingle, 12 s\n'}
OTHER = {'show-notes.md': '# Episode 14\n- Anna on community radio\n- Marek on field recording\n', 'episode.json': '{"episode": 14, "title": "Voices from the field", "files": 3}\n', 'cover-wav-style.txt': 'Cover art brief: waveform style, dark blue.\n'}
for name, text in sorted(WAV.items()):
    expect_bytes("/app/media/audio/" + name, text.encode())
    if os.path.lexists("/app/uploads/" + name):
        fail(f"/app/uploads/{name} is still there (move the file, don't copy it)")
for name, text in sorted(OTHER.items()):
    expect_bytes("/app/uploads/" + name, text.encode())
    if os.path.lexists("/app/media/audio/" + name):
        fail(f"/app/media/audio/{name} should not be there: only .wav files move")
finish()
