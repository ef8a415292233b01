"""Core of the ingest service: parse one feed record."""

import yaml


def parse(line):
    ts, source, payload = line.split("|", 2)
    return {"ts": ts, "source": source, "payload": payload}
