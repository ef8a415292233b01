import json, sqlite3, subprocess, sys, urllib.parse

BASE = "http://127.0.0.1:8093"
db = sqlite3.connect("file:/app/catalog.db?mode=ro", uri=True)
books = {i: {"id": i, "title": t, "year": y, "isbn": s} for i, t, y, s in db.execute("SELECT id, title, year, isbn FROM books")}
for b in books.values():
    b["authors"] = [n for (n,) in db.execute(
        "SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id WHERE ba.book_id = ? ORDER BY ba.position", (b["id"],))]
n_authors = db.execute("SELECT count(*) FROM authors").fetchone()[0]

def fold(s):
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in s)

def ref(q=None, author=None, year_from=None, year_to=None, page=1, per_page=10):
    per_page = min(per_page, 50)
    sel = []
    for b in books.values():
        if q is not None and fold(q) not in fold(b["title"]): continue
        if author is not None and not any(fold(author) in fold(a) for a in b["authors"]): continue
        if year_from is not None and (b["year"] is None or b["year"] < year_from): continue
        if year_to is not None and (b["year"] is None or b["year"] > year_to): continue
        sel.append(b)
    sel.sort(key=lambda b: (fold(b["title"]), b["id"]))
    chunk = sel[(page - 1) * per_page: page * per_page]
    return {"total": len(sel), "page": page, "per_page": per_page,
            "results": [{k: b[k] for k in ("id", "title", "year", "authors")} for b in chunk]}

def get(path):
    r = subprocess.run(["curl", "-s", "-m", "5", "-o", "/tmp/catalog_body", "-w", "%{http_code} %{content_type}", BASE + path],
                       capture_output=True, text=True)
    code, _, ct = r.stdout.partition(" ")
    try:
        body = json.load(open("/tmp/catalog_body"))
    except Exception:
        body = None
    return int(code or 0), ct, body

errors = []
def ok(path, expected):
    code, ct, body = get(path)
    if code != 200 or not ct.startswith("application/json"):
        errors.append(f"{path}: HTTP {code} {ct}")
    elif body != expected:
        errors.append(f"{path}: body differs\n  got      {json.dumps(body)[:300]}\n  expected {json.dumps(expected)[:300]}")

def err(path, want):
    code, ct, body = get(path)
    if code != want or not ct.startswith("application/json") or not isinstance(body, dict) or not isinstance(body.get("error"), str):
        errors.append(f"{path}: expected JSON error {want}, got HTTP {code} {ct} {body!r:.100}")

enc = urllib.parse.quote
ok("/stats", {"books": len(books), "authors": n_authors})
ok("/books", ref())
ok("/books?page=3&per_page=7", ref(page=3, per_page=7))
ok("/books?q=data", ref(q="data"))
ok("/books?q=DATA&per_page=5&page=2", ref(q="DATA", per_page=5, page=2))
ok("/books?q=" + enc("100%"), ref(q="100%"))
ok("/books?q=" + enc("_"), ref(q="_"))
ok("/books?q=" + enc("a_b"), ref(q="a_b"))
ok("/books?q=" + enc("5%"), ref(q="5%"))
ok("/books?q=" + enc("%"), ref(q="%"))
ok("/books?q=" + enc("O'Reilly"), ref(q="O'Reilly"))
ok("/books?q=" + enc("the ") + "&year_from=1990", ref(q="the ", year_from=1990))
ok("/books?year_from=2000&year_to=2005&per_page=100", ref(year_from=2000, year_to=2005, per_page=100))
some_author = sorted({a for b in books.values() for a in b["authors"]})[3]
frag = some_author.split()[-1][:4].upper()
ok("/books?author=" + enc(frag), ref(author=frag))
ok("/books?author=" + enc(frag) + "&q=a&per_page=3", ref(author=frag, q="a", per_page=3))
ok("/books?page=99", ref(page=99))
ok("/books?q=zzzz-no-such-title", ref(q="zzzz-no-such-title"))
for bid in (1, 17, len(books)):
    ok(f"/books/{bid}", books[bid])
err("/books/999999", 404)
err("/books/abc", 404)
err("/books?per_page=0", 400)
err("/books?page=0", 400)
err("/books?page=two", 400)
err("/books?year_from=recent", 400)
err("/nowhere", 404)

if errors:
    print("\n".join(errors)); sys.exit(1)
print("api ok")
