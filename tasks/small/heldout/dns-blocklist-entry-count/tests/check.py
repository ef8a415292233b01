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


ORIGINAL = '# Office DNS blocklist, one domain per line.\n# Maintained by the network team; reviewed monthly.\n# Advertising\nads.trackhub.example\npixel.adnet-one.example\ncdn.popunder.example\nbeacon.metricsly.example\ntags.spyglass.example\nads.bannerfarm.example\ntrack.clickstorm.example\nstats.snoopy.example\ntelemetry.noisyapp.example\nad.doubleview.example\ncollect.heatmapper.example\nsync.cookiejar.example\nrtb.bidstream.example\nstatic.adfeeder.example\nlog.eventpipe.example\nimg.trackpixel.example\npagead.sponsorly.example\napi.fingerprinter.example\ncdn.malvertise.example\nads.videoroll.example\n# Tracking and telemetry\nmetrics.peekaboo.example\ncounter.visitcount.example\nt.shortlinker.example\nanalytics.overshare.example\npush.notifyspam.example\nads.mobilebanner.example\nsrv.affiliately.example\nping.heartbeatads.example\nwidget.recommendo.example\ntracker.mailopen.example\n# Malware and cryptominers\nads.gamebanner.example\nsdk.adcrashlytics.example\njs.popupmaker.example\ncdn.cryptominer.example\nads.newsfeedy.example\nstats.trackall.example\na.beaconbox.example\n'
got = text_of("/app/dns/blocked_count.txt")
if got is not None and got.strip() != "37":
    fail(f"/app/dns/blocked_count.txt holds {got.strip()[:40]!r}, expected '37'")
expect_text("/app/dns/blocklist.txt", ORIGINAL)
finish()
