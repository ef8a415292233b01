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


ORIGINAL = 'bib,name,club,finish_time\n101,Ingrid Solberg,Bergen Lopeklubb,01:23:32\n104,Tomasz Wrona,KS Gdynia Biega,01:13:08\n107,Aiko Tanaka,Riverside Striders,01:55:35\n110,Mateo Ruiz,Club Atletismo Vigo,01:32:27\n113,Hanna Lindqvist,Uppsala Lopare,01:19:21\n116,Kwame Mensah,Riverside Striders,01:08:46\n119,Lucia Ferraro,Atletica Torino,01:41:42\n122,Oskar Brandt,LG Kiel,02:04:48\n125,Nadia Haddad,Harbour Harriers,01:28:00\n128,Pieter de Wit,AV Haarlem,01:16:30\n131,Sofia Moretti,Atletica Torino,01:37:13\n134,Jonas Eklund,Uppsala Lopare,01:47:47\n137,Emily Carter,Harbour Harriers,01:22:59\n140,Rafael Costa,Club Atletismo Vigo,01:56:51\n143,Maren Holt,Bergen Lopeklubb,01:29:59\n146,Dmitri Volkov,LG Kiel,02:16:44\n'
WANT = ['bib,name,club,finish_time', '116,Kwame Mensah,Riverside Striders,01:08:46', '104,Tomasz Wrona,KS Gdynia Biega,01:13:08', '128,Pieter de Wit,AV Haarlem,01:16:30', '113,Hanna Lindqvist,Uppsala Lopare,01:19:21', '137,Emily Carter,Harbour Harriers,01:22:59', '101,Ingrid Solberg,Bergen Lopeklubb,01:23:32', '125,Nadia Haddad,Harbour Harriers,01:28:00', '143,Maren Holt,Bergen Lopeklubb,01:29:59', '110,Mateo Ruiz,Club Atletismo Vigo,01:32:27', '131,Sofia Moretti,Atletica Torino,01:37:13', '119,Lucia Ferraro,Atletica Torino,01:41:42', '134,Jonas Eklund,Uppsala Lopare,01:47:47', '107,Aiko Tanaka,Riverside Striders,01:55:35', '140,Rafael Costa,Club Atletismo Vigo,01:56:51', '122,Oskar Brandt,LG Kiel,02:04:48', '146,Dmitri Volkov,LG Kiel,02:16:44']
OUT = "/app/race/ranking.csv"
got = lines_of(OUT)
if got is not None and got and got[0] != WANT[0]:
    where = f"line {got.index(WANT[0]) + 1}" if WANT[0] in got else "nowhere"
    fail(f"{OUT}: the first line must be the header {WANT[0]!r}; it is at {where}")
expect_lines(OUT, WANT, got)
expect_text("/app/race/results.csv", ORIGINAL)
finish()
