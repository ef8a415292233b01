#!/usr/bin/env python3
"""Incident report service (internal): GET /report?team=NAME, header X-Team-Token required."""
import json
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlparse

TOKEN = "ops-2291"
INCIDENTS = json.load(open("/app/data/incidents.json"))


def team_report(team):
    mine = [i for i in INCIDENTS if i["team"] == team]
    opened = sorted((i for i in mine if i["state"] == "open"), key=lambda i: i["opened"])
    return {"team": team, "open": len(opened), "closed": len(mine) - len(opened),
            "oldest_open": opened[0]["id"] if opened else None, "incidents": [i["id"] for i in mine]}


class Handler(BaseHTTPRequestHandler):
    def reply(self, code, payload):
        body = (json.dumps(payload, indent=2) + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlparse(self.path)
        if url.path != "/report":
            return self.reply(404, {"error": "not found"})
        if self.headers.get("X-Team-Token") != TOKEN:
            return self.reply(403, {"error": "missing or wrong X-Team-Token header"})
        team = parse_qs(url.query).get("team", [None])[0]
        if not team:
            return self.reply(400, {"error": "team parameter required"})
        return self.reply(200, team_report(team))


if __name__ == "__main__":
    HTTPServer(("127.0.0.1", 8093), Handler).serve_forever()
