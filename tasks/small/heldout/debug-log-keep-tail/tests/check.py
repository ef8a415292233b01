import json, os, stat, sys

FAILS = []


def fail(msg):
    FAILS.append(msg)


def lines_of(path):
    """The file's lines (a missing final newline is tolerated), or None when it is missing."""
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def json_of(path):
    if not os.path.isfile(path):
        fail(f"{path} is missing")
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except ValueError as exc:
        fail(f"{path} is not valid JSON: {exc}")
        return None


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def expect_lines(path, want):
    got = lines_of(path)
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


expect_lines("/app/var/banner.txt", ['0001 === ingest daemon 2.8.1 starting ===', '0002 BOOT banner line', '0003 BOOT banner line', '0004 BOOT banner line', '0005 tick 35 queue=5'])
expect_lines("/app/var/debug.log", ['0401 tick 807 queue=11', '0402 tick 814 queue=12', '0403 tick 821 queue=0', '0404 tick 828 queue=1', '0405 tick 835 queue=2', '0406 tick 842 queue=3', '0407 tick 849 queue=4', '0408 tick 856 queue=5', '0409 tick 863 queue=6', '0410 tick 870 queue=7', '0411 tick 877 queue=8', '0412 tick 884 queue=9', '0413 tick 891 queue=10', '0414 tick 898 queue=11', '0415 tick 905 queue=12', '0416 tick 912 queue=0', '0417 tick 919 queue=1', '0418 tick 926 queue=2', '0419 tick 933 queue=3', '0420 tick 940 queue=4', '0421 tick 947 queue=5', '0422 tick 954 queue=6', '0423 tick 961 queue=7', '0424 tick 968 queue=8', '0425 tick 975 queue=9', '0426 tick 982 queue=10', '0427 tick 989 queue=11', '0428 tick 996 queue=12', '0429 tick 3 queue=0', '0430 tick 10 queue=1', '0431 tick 17 queue=2', '0432 tick 24 queue=3', '0433 tick 31 queue=4', '0434 tick 38 queue=5', '0435 tick 45 queue=6', '0436 tick 52 queue=7', '0437 tick 59 queue=8', '0438 tick 66 queue=9', '0439 tick 73 queue=10', '0440 tick 80 queue=11', '0441 tick 87 queue=12', '0442 tick 94 queue=0', '0443 tick 101 queue=1', '0444 tick 108 queue=2', '0445 tick 115 queue=3', '0446 tick 122 queue=4', '0447 tick 129 queue=5', '0448 tick 136 queue=6', '0449 tick 143 queue=7', '0450 tick 150 queue=8', '0451 tick 157 queue=9', '0452 tick 164 queue=10', '0453 tick 171 queue=11', '0454 tick 178 queue=12', '0455 tick 185 queue=0', '0456 tick 192 queue=1', '0457 tick 199 queue=2', '0458 tick 206 queue=3', '0459 tick 213 queue=4', '0460 tick 220 queue=5', '0461 tick 227 queue=6', '0462 tick 234 queue=7', '0463 tick 241 queue=8', '0464 tick 248 queue=9', '0465 tick 255 queue=10', '0466 tick 262 queue=11', '0467 tick 269 queue=12', '0468 tick 276 queue=0', '0469 tick 283 queue=1', '0470 tick 290 queue=2', '0471 tick 297 queue=3', '0472 tick 304 queue=4', '0473 tick 311 queue=5', '0474 tick 318 queue=6', '0475 tick 325 queue=7', '0476 tick 332 queue=8', '0477 tick 339 queue=9', '0478 tick 346 queue=10', '0479 tick 353 queue=11', '0480 tick 360 queue=12', '0481 tick 367 queue=0', '0482 tick 374 queue=1', '0483 tick 381 queue=2', '0484 tick 388 queue=3', '0485 tick 395 queue=4', '0486 tick 402 queue=5', '0487 tick 409 queue=6', '0488 tick 416 queue=7', '0489 tick 423 queue=8', '0490 tick 430 queue=9', '0491 tick 437 queue=10', '0492 tick 444 queue=11', '0493 tick 451 queue=12', '0494 tick 458 queue=0', '0495 tick 465 queue=1', '0496 tick 472 queue=2', '0497 tick 479 queue=3', '0498 tick 486 queue=4', '0499 tick 493 queue=5', '0500 tick 500 queue=6'])
finish()
