#!/bin/bash
set -e
# step: write the read-only catalogue API server
cat > /app/catalog_server.py <<'PY'
#!/usr/bin/env python3
"""Read-only JSON search API over /app/catalog.db on 127.0.0.1:8093."""
import json
import re
import sqlite3
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

DB = "file:/app/catalog.db?mode=ro"


class BadRequest(Exception):
    pass


def connect():
    return sqlite3.connect(DB, uri=True)


def like_pattern(text):
    return "%" + text + "%"


def authors_of(con, book_id):
    return [n for (n,) in con.execute(
        "SELECT a.name FROM book_authors ba JOIN authors a ON a.id = ba.author_id "
        "WHERE ba.book_id = ? ORDER BY ba.position", (book_id,))]


def int_param(q, name, default=None, minimum=None):
    if name not in q:
        return default
    try:
        v = int(q[name][0])
    except ValueError:
        raise BadRequest(f"{name} must be an integer")
    if minimum is not None and v < minimum:
        raise BadRequest(f"{name} must be >= {minimum}")
    return v


def search(con, q):
    page = int_param(q, "page", 1, 1)
    per_page = min(int_param(q, "per_page", 10, 1), 50)
    year_from = int_param(q, "year_from")
    year_to = int_param(q, "year_to")
    where, args = [], []
    if "q" in q:
        where.append("b.title LIKE ? ESCAPE '\\'")
        args.append(like_pattern(q["q"][0]))
    if "author" in q:
        where.append("EXISTS (SELECT 1 FROM book_authors ba JOIN authors a ON a.id = ba.author_id "
                     "WHERE ba.book_id = b.id AND a.name LIKE ? ESCAPE '\\')")
        args.append(like_pattern(q["author"][0]))
    if year_from is not None:
        where.append("b.year >= ?")
        args.append(year_from)
    if year_to is not None:
        where.append("b.year <= ?")
        args.append(year_to)
    clause = (" WHERE " + " AND ".join(where)) if where else ""
    total = con.execute("SELECT count(*) FROM books b" + clause, args).fetchone()[0]
    rows = con.execute("SELECT b.id, b.title, b.year FROM books b" + clause +
                       " ORDER BY b.title COLLATE NOCASE, b.id LIMIT ? OFFSET ?",
                       args + [per_page, (page - 1) * per_page]).fetchall()
    results = [{"id": i, "title": t, "year": y, "authors": authors_of(con, i)} for i, t, y in rows]
    return {"total": total, "page": page, "per_page": per_page, "results": results}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass

    def reply(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlsplit(self.path)
        q = parse_qs(url.query, keep_blank_values=True)
        con = connect()
        try:
            if url.path == "/stats":
                b = con.execute("SELECT count(*) FROM books").fetchone()[0]
                a = con.execute("SELECT count(*) FROM authors").fetchone()[0]
                return self.reply(200, {"books": b, "authors": a})
            if url.path == "/books":
                return self.reply(200, search(con, q))
            m = re.fullmatch(r"/books/(\d+)", url.path)
            if m:
                row = con.execute("SELECT id, title, year, isbn FROM books WHERE id = ?", (int(m.group(1)),)).fetchone()
                if not row:
                    return self.reply(404, {"error": "no such book"})
                i, t, y, s = row
                return self.reply(200, {"id": i, "title": t, "year": y, "isbn": s, "authors": authors_of(con, i)})
            return self.reply(404, {"error": "not found"})
        except BadRequest as e:
            return self.reply(400, {"error": str(e)})
        finally:
            con.close()


if __name__ == "__main__":
    srv = ThreadingHTTPServer(("127.0.0.1", 8093), Handler)
    srv.daemon_threads = True
    srv.serve_forever()
PY
# step: start it in the background
cd /app
nohup python3 /app/catalog_server.py > /tmp/catalog_server.log 2>&1 &
echo $! > /tmp/catalog_server.pid
for i in $(seq 1 30); do curl -s -m 1 -o /dev/null http://127.0.0.1:8093/stats && break; sleep 0.2; done
curl -s 'http://127.0.0.1:8093/books?per_page=2'
# step[easy-to-miss]: make q/author literal: escape LIKE wildcards (% and _) and the escape char, then restart
python3 - <<'PY'
p = "/app/catalog_server.py"
s = open(p).read()
old = '''def like_pattern(text):
    return "%" + text + "%"
'''
new = '''def like_pattern(text):
    esc = text.replace("\\\\", "\\\\\\\\").replace("%", "\\\\%").replace("_", "\\\\_")
    return "%" + esc + "%"
'''
assert old in s
open(p, "w").write(s.replace(old, new))
PY
kill "$(cat /tmp/catalog_server.pid)" 2>/dev/null || true
for i in $(seq 1 30); do curl -s -m 1 -o /dev/null http://127.0.0.1:8093/stats || break; sleep 0.2; done
nohup python3 /app/catalog_server.py > /tmp/catalog_server.log 2>&1 &
echo $! > /tmp/catalog_server.pid
for i in $(seq 1 30); do curl -s -m 1 -o /dev/null http://127.0.0.1:8093/stats && break; sleep 0.2; done
curl -s 'http://127.0.0.1:8093/books?q=100%25'
