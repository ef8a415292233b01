import gzip, hashlib, os, stat, sys, tarfile

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


def expect_bytes(path, want, what="does not have the expected content"):
    got = bytes_of(path)
    if got is not None and got != want:
        fail(f"{path} {what}")


def expect_absent(path, why="should not exist"):
    if os.path.lexists(path):
        fail(f"{path} {why}")


def mode_of(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def expect_mode(path, want):
    if not os.path.lexists(path):
        fail(f"{path} is missing")
    elif os.path.islink(path):
        fail(f"{path} became a symlink")
    elif mode_of(path) != want:
        fail(f"{path}: mode {mode_of(path):04o}, expected {want:04o}")


def expect_listing(directory, names):
    """The directory holds exactly ``names`` (nothing missing, nothing new)."""
    if not os.path.isdir(directory) or os.path.islink(directory):
        fail(f"{directory} is missing or not a directory")
        return
    have = set(os.listdir(directory))
    missing, extra = sorted(set(names) - have), sorted(have - set(names))
    if missing or extra:
        fail(f"{directory}: missing {missing}, unexpected {extra}")


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


DIST = {'index.html': '<!doctype html>\n<title>Velo Shop</title>\n<link rel="stylesheet" href="assets/app.81ab4.css">\n<script src="assets/app.3f9c2.js" defer></script>\n<img src="img/logo.svg" alt="Velo">\n', 'robots.txt': 'User-agent: *\nAllow: /\n', 'assets/app.3f9c2.js': 'document.addEventListener("DOMContentLoaded",()=>{document.body.dataset.ready="1"});\n', 'assets/app.81ab4.css': 'body{margin:0;font-family:system-ui}header{background:#123}\n', 'img/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>\n'}
TIMES = {'index.html': 1718182800, 'robots.txt': 1709251200, 'assets/app.3f9c2.js': 1718182740, 'assets/app.81ab4.css': 1717405200, 'img/logo.svg': 1704103200}
BLOG = '<!doctype html>\n<title>Velo Blog</title>\n<p>Riding season is here.</p>\n'
SRC, DST = "/app/frontend/dist", "/app/www/shop"


def tree(root):
    found = set()
    for d, dirs, fs in os.walk(root):
        for n in fs + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            found.add(os.path.relpath(os.path.join(d, n), root))
    return found


if os.path.isdir(DST + "/dist"):
    fail(f"{DST}/dist exists: the contents of dist go directly into {DST}")
for root in (SRC, DST):
    if not os.path.isdir(root) or os.path.islink(root):
        fail(f"{root} is missing or not a directory")
        continue
    have = tree(root)
    if have != set(DIST):
        fail(f"{root}: missing {sorted(set(DIST) - have)}, unexpected {sorted(have - set(DIST))}")
    for rel, text in DIST.items():
        expect_bytes(os.path.join(root, rel), text.encode())
stale = []
for rel, when in TIMES.items():
    s, d = os.path.join(SRC, rel), os.path.join(DST, rel)
    if os.path.isfile(s) and int(os.stat(s).st_mtime) != when:
        fail(f"{s}: its modification time changed")
    if os.path.isfile(d) and not os.path.islink(d) and int(os.stat(d).st_mtime) != when:
        stale.append(rel)
if stale:
    fail(f"copied without keeping the modification times: {stale}")
expect_bytes("/app/www/blog/index.html", BLOG.encode(), "was changed")
expect_listing("/app/www", ["blog", "shop"])
finish()
