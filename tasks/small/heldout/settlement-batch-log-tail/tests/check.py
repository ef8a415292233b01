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


ORIGINAL = '2024-06-11 02:00:01 settle[4411] batch 0611 started: merchant_count=38 currency=EUR\n2024-06-11 02:00:02 settle[4411] connected to acquirer gateway acq-eu-2\n2024-06-11 02:00:10 settle[4411] txn T70103 settled amount=147.29 EUR\n2024-06-11 02:00:17 settle[4411] txn T70106 settled amount=284.58 EUR\n2024-06-11 02:00:21 settle[4411] txn T70109 settled amount=421.87 EUR\n2024-06-11 02:00:27 settle[4411] txn T70112 settled amount=558.16 EUR\n2024-06-11 02:00:30 settle[4411] txn T70115 settled amount=695.45 EUR\n2024-06-11 02:00:35 settle[4411] txn T70118 settled amount=832.74 EUR\n2024-06-11 02:00:42 settle[4411] txn T70121 settled amount=69.03 EUR\n2024-06-11 02:00:46 settle[4411] txn T70124 settled amount=206.32 EUR\n2024-06-11 02:00:52 settle[4411] txn T70127 settled amount=343.61 EUR\n2024-06-11 02:00:55 settle[4411] txn T70130 settled amount=480.90 EUR\n2024-06-11 02:01:00 settle[4411] txn T70133 settled amount=617.19 EUR\n2024-06-11 02:01:07 settle[4411] txn T70136 settled amount=754.48 EUR\n2024-06-11 02:01:11 settle[4411] txn T70139 settled amount=891.77 EUR\n2024-06-11 02:01:17 settle[4411] txn T70142 settled amount=128.06 EUR\n2024-06-11 02:01:20 settle[4411] txn T70145 settled amount=265.35 EUR\n2024-06-11 02:01:25 settle[4411] txn T70148 settled amount=402.64 EUR\n2024-06-11 02:01:32 settle[4411] txn T70151 settled amount=539.93 EUR\n2024-06-11 02:01:36 settle[4411] txn T70154 settled amount=676.22 EUR\n2024-06-11 02:01:42 settle[4411] txn T70157 settled amount=813.51 EUR\n2024-06-11 02:01:45 settle[4411] txn T70160 settled amount=50.80 EUR\n2024-06-11 02:01:50 settle[4411] txn T70163 settled amount=187.09 EUR\n2024-06-11 02:01:57 settle[4411] txn T70166 settled amount=324.38 EUR\n2024-06-11 02:02:01 settle[4411] txn T70169 settled amount=461.67 EUR\n2024-06-11 02:02:07 settle[4411] txn T70172 settled amount=598.96 EUR\n2024-06-11 02:02:10 settle[4411] txn T70175 settled amount=735.25 EUR\n2024-06-11 02:02:15 settle[4411] txn T70178 settled amount=872.54 EUR\n2024-06-11 02:02:22 settle[4411] txn T70181 settled amount=109.83 EUR\n2024-06-11 02:02:26 settle[4411] txn T70184 settled amount=246.12 EUR\n2024-06-11 02:02:32 settle[4411] txn T70187 settled amount=383.41 EUR\n2024-06-11 02:02:35 settle[4411] txn T70190 settled amount=520.70 EUR\n2024-06-11 02:02:40 settle[4411] txn T70193 settled amount=657.99 EUR\n2024-06-11 02:02:47 settle[4411] txn T70196 settled amount=794.28 EUR\n2024-06-11 02:02:51 settle[4411] txn T70199 settled amount=31.57 EUR\n2024-06-11 02:02:57 settle[4411] txn T70202 settled amount=168.86 EUR\n2024-06-11 02:03:00 settle[4411] txn T70205 settled amount=305.15 EUR\n2024-06-11 02:03:05 settle[4411] txn T70208 settled amount=442.44 EUR\n2024-06-11 02:03:12 settle[4411] txn T70211 settled amount=579.73 EUR\n2024-06-11 02:03:16 settle[4411] txn T70214 settled amount=716.02 EUR\n2024-06-11 02:03:22 settle[4411] txn T70217 settled amount=853.31 EUR\n2024-06-11 02:03:25 settle[4411] txn T70220 settled amount=90.60 EUR\n2024-06-11 02:03:30 settle[4411] txn T70223 settled amount=227.89 EUR\n2024-06-11 02:03:37 settle[4411] txn T70226 settled amount=364.18 EUR\n2024-06-11 02:03:41 settle[4411] txn T70229 settled amount=501.47 EUR\n2024-06-11 02:03:47 settle[4411] txn T70232 settled amount=638.76 EUR\n2024-06-11 02:03:50 settle[4411] txn T70235 settled amount=775.05 EUR\n2024-06-11 02:03:55 settle[4411] txn T70238 settled amount=12.34 EUR\n2024-06-11 02:04:02 settle[4411] txn T70241 settled amount=149.63 EUR\n2024-06-11 02:04:06 settle[4411] txn T70244 settled amount=286.92 EUR\n2024-06-11 02:04:12 settle[4411] txn T70247 settled amount=423.21 EUR\n2024-06-11 02:04:15 settle[4411] txn T70250 settled amount=560.50 EUR\n2024-06-11 02:04:20 settle[4411] txn T70253 settled amount=697.79 EUR\n2024-06-11 02:04:27 settle[4411] txn T70256 settled amount=834.08 EUR\n2024-06-11 02:04:31 settle[4411] txn T70259 settled amount=71.37 EUR\n2024-06-11 02:04:37 settle[4411] txn T70262 settled amount=208.66 EUR\n2024-06-11 02:04:40 settle[4411] txn T70265 settled amount=345.95 EUR\n2024-06-11 02:04:45 settle[4411] txn T70268 settled amount=482.24 EUR\n2024-06-11 02:04:52 settle[4411] txn T70271 settled amount=619.53 EUR\n2024-06-11 02:04:56 settle[4411] txn T70274 settled amount=756.82 EUR\n2024-06-11 02:05:02 settle[4411] txn T70277 settled amount=893.11 EUR\n2024-06-11 02:05:05 settle[4411] txn T70280 settled amount=130.40 EUR\n2024-06-11 02:05:10 settle[4411] txn T70283 settled amount=267.69 EUR\n2024-06-11 02:05:17 settle[4411] txn T70286 settled amount=404.98 EUR\n2024-06-11 02:05:21 settle[4411] txn T70289 settled amount=541.27 EUR\n2024-06-11 02:05:27 settle[4411] txn T70292 settled amount=678.56 EUR\n2024-06-11 02:05:30 settle[4411] txn T70295 settled amount=815.85 EUR\n2024-06-11 02:05:35 settle[4411] txn T70298 settled amount=52.14 EUR\n2024-06-11 02:05:42 settle[4411] txn T70301 settled amount=189.43 EUR\n2024-06-11 02:05:46 settle[4411] txn T70304 settled amount=326.72 EUR\n2024-06-11 02:05:52 settle[4411] txn T70307 settled amount=463.01 EUR\n2024-06-11 02:05:55 settle[4411] txn T70310 settled amount=600.30 EUR\n2024-06-11 02:06:00 settle[4411] txn T70313 settled amount=737.59 EUR\n2024-06-11 02:06:07 settle[4411] txn T70316 settled amount=874.88 EUR\n2024-06-11 02:06:11 settle[4411] txn T70319 settled amount=111.17 EUR\n2024-06-11 02:06:17 settle[4411] txn T70322 settled amount=248.46 EUR\n2024-06-11 02:06:20 settle[4411] txn T70325 settled amount=385.75 EUR\n2024-06-11 02:06:25 settle[4411] txn T70328 settled amount=522.04 EUR\n2024-06-11 02:06:32 settle[4411] txn T70331 settled amount=659.33 EUR\n2024-06-11 02:06:36 settle[4411] txn T70334 settled amount=796.62 EUR\n2024-06-11 02:06:42 settle[4411] txn T70337 settled amount=33.91 EUR\n2024-06-11 02:06:45 settle[4411] txn T70340 settled amount=170.20 EUR\n2024-06-11 02:06:50 settle[4411] txn T70343 settled amount=307.49 EUR\n2024-06-11 02:06:57 settle[4411] txn T70346 settled amount=444.78 EUR\n2024-06-11 02:07:01 settle[4411] txn T70349 settled amount=581.07 EUR\n2024-06-11 02:07:07 settle[4411] txn T70352 settled amount=718.36 EUR\n2024-06-11 02:07:10 settle[4411] txn T70355 settled amount=855.65 EUR\n2024-06-11 02:07:15 settle[4411] txn T70358 settled amount=92.94 EUR\n2024-06-11 02:07:22 settle[4411] txn T70361 settled amount=229.23 EUR\n2024-06-11 02:07:26 settle[4411] txn T70364 settled amount=366.52 EUR\n2024-06-11 02:07:32 settle[4411] txn T70367 settled amount=503.81 EUR\n2024-06-11 02:07:35 settle[4411] txn T70370 settled amount=640.10 EUR\n2024-06-11 02:07:40 settle[4411] txn T70373 settled amount=777.39 EUR\n2024-06-11 02:07:47 settle[4411] txn T70376 settled amount=14.68 EUR\n2024-06-11 02:07:51 settle[4411] txn T70379 settled amount=151.97 EUR\n2024-06-11 02:07:57 settle[4411] txn T70382 settled amount=288.26 EUR\n2024-06-11 02:08:00 settle[4411] txn T70385 settled amount=425.55 EUR\n2024-06-11 02:08:05 settle[4411] txn T70388 settled amount=562.84 EUR\n2024-06-11 02:08:12 settle[4411] txn T70391 settled amount=699.13 EUR\n2024-06-11 02:08:16 settle[4411] txn T70394 settled amount=836.42 EUR\n2024-06-11 02:08:22 settle[4411] txn T70397 settled amount=73.71 EUR\n2024-06-11 02:08:25 settle[4411] txn T70400 settled amount=210.00 EUR\n2024-06-11 02:08:30 settle[4411] txn T70403 settled amount=347.29 EUR\n2024-06-11 02:08:37 settle[4411] txn T70406 settled amount=484.58 EUR\n2024-06-11 02:08:41 settle[4411] txn T70409 settled amount=621.87 EUR\n2024-06-11 02:08:47 settle[4411] txn T70412 settled amount=758.16 EUR\n2024-06-11 02:08:50 settle[4411] txn T70415 settled amount=895.45 EUR\n2024-06-11 02:08:55 settle[4411] txn T70418 settled amount=132.74 EUR\n2024-06-11 02:09:02 settle[4411] txn T70421 settled amount=269.03 EUR\n2024-06-11 02:09:06 settle[4411] txn T70424 settled amount=406.32 EUR\n2024-06-11 02:09:12 settle[4411] txn T70427 settled amount=543.61 EUR\n2024-06-11 02:09:15 settle[4411] txn T70430 settled amount=680.90 EUR\n2024-06-11 02:09:20 settle[4411] txn T70433 settled amount=817.19 EUR\n2024-06-11 02:10:41 settle[4411] WARN acquirer response time 9.8s (limit 10s)\n2024-06-11 02:10:52 settle[4411] ERROR acquirer gateway acq-eu-2: connection reset by peer\n2024-06-11 02:10:52 settle[4411] batch 0611 aborted after 111 transactions (exit 75)\n'
expect_lines("/app/support/PAY-771/log-tail.txt", ORIGINAL.splitlines()[-30:])
expect_text("/app/settlement/logs/batch-0611.log", ORIGINAL)
finish()
