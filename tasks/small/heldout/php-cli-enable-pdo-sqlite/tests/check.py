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


def expect_lines(path, want, got=...):
    got = lines_of(path) if got is ... else got
    want = [line.rstrip() for line in want]
    if got is not None and got != want:
        fail(f"{path}: got {got[:12]!r}{' ...' if len(got) > 12 else ''}, expected {want[:12]!r}"
             f"{' ...' if len(want) > 12 else ''}")


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


ORIGINAL = "[PHP]\n\n;;;;;;;;;;;;;;;;;;;\n; About php.ini   ;\n;;;;;;;;;;;;;;;;;;;\n; This is the php.ini used by the PHP command line (tests, cron scripts, composer).\n\nengine = On\nshort_open_tag = Off\nprecision = 14\noutput_buffering = 4096\nmemory_limit = 512M\nerror_reporting = E_ALL & ~E_DEPRECATED & ~E_STRICT\ndisplay_errors = Off\nlog_errors = On\nmax_execution_time = 0\n\n;;;;;;;;;;;;;;;;;;;;;;\n; Dynamic Extensions ;\n;;;;;;;;;;;;;;;;;;;;;;\n\n; If you wish to have an extension loaded automatically, use the following\n; syntax:\n;\n;   extension=modulename\n;\n; Note : The syntax used in previous PHP versions ('extension=<ext>.so' and\n; 'extension='php_<ext>.dll') is supported for legacy reasons and may be\n; deprecated in a future PHP major version.\n\n;extension=bz2\n;extension=curl\n;extension=ffi\n;extension=ftp\n;extension=fileinfo\n;extension=gd\n;extension=gettext\n;extension=intl\n;extension=mbstring\n;extension=mysqli\n;extension=odbc\n;extension=openssl\n;extension=pdo_mysql\n;extension=pdo_odbc\n;extension=pdo_pgsql\n;extension=pdo_sqlite\n;extension=pgsql\n;extension=sockets\n;extension=sqlite3\n;extension=xsl\n;extension=zip\n\n[Date]\n;date.timezone =\n\n[Pdo_mysql]\npdo_mysql.default_socket=\n"
WANT = ORIGINAL.replace("\n;extension=pdo_sqlite\n", "\nextension=pdo_sqlite\n", 1)
assert WANT != ORIGINAL
INI = "/app/etc/php/8.2/cli/php.ini"
got = lines_of(INI)
if got is not None:
    enabled = [line for line in got if line.startswith("extension=")]
    if enabled != ["extension=pdo_sqlite"]:
        fail(f"{INI}: the enabled extensions are {enabled!r}, expected only ['extension=pdo_sqlite']")
expect_lines(INI, WANT.splitlines(), got)
finish()
