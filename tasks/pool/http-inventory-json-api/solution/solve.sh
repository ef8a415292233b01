#!/bin/bash
set -e
# step: write the JSON API server
cat > /app/inventory_server.py <<'PY'
#!/usr/bin/env python3
"""Stock API: JSON over HTTP on 127.0.0.1:8087, persisted to /app/data/inventory.json."""
import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

DATA = "/app/data/inventory.json"
LOCK = threading.Lock()


def load():
    with open(DATA, encoding="utf-8") as fh:
        return {it["sku"]: it for it in json.load(fh)["items"]}


def save(items):
    tmp = DATA + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"items": sorted(items.values(), key=lambda i: i["sku"])}, fh, indent=2)
        fh.write("\n")
    os.replace(tmp, DATA)


ITEMS = load()


def is_count(v, allow_negative=False):
    return isinstance(v, int) and not isinstance(v, bool) and (allow_negative or v >= 0)


class Handler(BaseHTTPRequestHandler):
    server_version = "inventory/1.0"

    def log_message(self, fmt, *args):
        pass

    def reply(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def error(self, code, msg):
        self.reply(code, {"error": msg})

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(n) or b"null")
        except (ValueError, UnicodeDecodeError):
            return None

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/health":
            return self.reply(200, {"status": "ok"})
        if url.path == "/items":
            q = parse_qs(url.query)
            items = sorted(ITEMS.values(), key=lambda i: i["sku"])
            if "min_qty" in q:
                try:
                    m = int(q["min_qty"][0])
                except ValueError:
                    return self.error(400, "min_qty must be an integer")
                items = [i for i in items if i["qty"] >= m]
            return self.reply(200, items)
        m = re.fullmatch(r"/items/([^/]+)", url.path)
        if m:
            it = ITEMS.get(m.group(1))
            return self.reply(200, it) if it else self.error(404, "no such item")
        self.send_error(404)

    def do_POST(self):
        url = urlsplit(self.path)
        if url.path == "/items":
            b = self.body()
            if not isinstance(b, dict):
                return self.error(400, "body must be a JSON object")
            if not isinstance(b.get("sku"), str) or not b["sku"] or not isinstance(b.get("name"), str):
                return self.error(400, "sku and name are required strings")
            if not is_count(b.get("qty")):
                return self.error(400, "qty must be a non-negative integer")
            with LOCK:
                if b["sku"] in ITEMS:
                    return self.error(409, "sku already exists")
                it = {"sku": b["sku"], "name": b["name"], "qty": b["qty"]}
                ITEMS[it["sku"]] = it
                save(ITEMS)
            return self.reply(201, it)
        m = re.fullmatch(r"/items/([^/]+)/adjust", url.path)
        if m:
            b = self.body()
            with LOCK:
                it = ITEMS.get(m.group(1))
                if not it:
                    return self.error(404, "no such item")
                if not isinstance(b, dict) or not is_count(b.get("delta"), allow_negative=True):
                    return self.error(400, "delta must be an integer")
                if it["qty"] + b["delta"] < 0:
                    return self.error(409, "insufficient stock")
                it["qty"] += b["delta"]
                save(ITEMS)
            return self.reply(200, it)
        self.send_error(404)


if __name__ == "__main__":
    srv = ThreadingHTTPServer(("127.0.0.1", 8087), Handler)
    srv.daemon_threads = True
    srv.serve_forever()
PY
# step: start it in the background
cd /app
nohup python3 /app/inventory_server.py > /tmp/inventory_server.log 2>&1 &
echo $! > /tmp/inventory_server.pid
for i in $(seq 1 30); do curl -s -m 1 -o /dev/null http://127.0.0.1:8087/health && break; sleep 0.2; done
curl -s http://127.0.0.1:8087/health
# step[easy-to-miss]: unknown paths must get a JSON 404 too (send_error emits HTML); restart the server
sed -i 's/^        self.send_error(404)$/        self.error(404, "no such endpoint")/' /app/inventory_server.py
kill "$(cat /tmp/inventory_server.pid)" 2>/dev/null || true
for i in $(seq 1 30); do curl -s -m 1 -o /dev/null http://127.0.0.1:8087/health || break; sleep 0.2; done
cd /app
nohup python3 /app/inventory_server.py > /tmp/inventory_server.log 2>&1 &
echo $! > /tmp/inventory_server.pid
for i in $(seq 1 30); do curl -s -m 1 -o /dev/null http://127.0.0.1:8087/health && break; sleep 0.2; done
curl -s http://127.0.0.1:8087/nowhere
