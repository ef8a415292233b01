#!/usr/bin/env python3
"""tilecache: map tile cache; this module only serves the status endpoint the load balancer polls."""
import configparser
import json
import os
import sqlite3
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
cfg = configparser.ConfigParser()
cfg.read(os.path.join(HERE, "config.ini"))

BIND = cfg.get("server", "bind")
PORT = cfg.get("server", "port")
DB_PATH = os.path.join(HERE, cfg.get("storage", "db"))
VERSION = open(os.path.join(HERE, "VERSION")).read().strip()


def db_status():
    try:
        con = sqlite3.connect(DB_PATH)
        try:
            n = con.execute("SELECT count(*) FROM schema_migrations").fetchone()[0]
        finally:
            con.close()
        return "ok", n
    except sqlite3.Error as e:
        return f"error: {e}", None


class Handler(BaseHTTPRequestHandler):
    def _send(self, code, payload):
        body = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/healthz":
            db, n = db_status()
            ok = db == "ok"
            self._send(200 if ok else 503, {"status": "ok" if ok else "degraded", "db": db,
                                            "migrations": n, "version": VERSION})
        else:
            self._send(404, {"error": "not found"})

    def log_message(self, fmt, *args):
        print("%s - %s" % (self.address_string(), fmt % args), flush=True)


def main():
    server = ThreadingHTTPServer((BIND, PORT), Handler)
    print(f"tilecache {VERSION} listening on {BIND}:{PORT}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
