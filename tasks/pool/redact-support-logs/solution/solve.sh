#!/bin/bash
set -e
# step[easy-to-miss]: write redact.py (only Luhn-valid 16-digit numbers are cards)
cat > /app/redact.py <<'PY'
#!/usr/bin/env python3
"""Redact PII and secrets from log text: stdin -> stdout."""
import re
import sys

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
IPV4 = re.compile(r"(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\d.])")
BEARER = re.compile(r"(Bearer )[^\s\"]+")
APIKEY = re.compile(r"(api_key=)[^&\s]+")
CARD = re.compile(r"(?<![\d-])(?:\d{16}|\d{4}([ -])\d{4}\1\d{4}\1\d{4})(?![\d-])")


def luhn_ok(digits):
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def card_sub(m):
    digits = re.sub(r"\D", "", m.group(0))
    return "[CARD]" if luhn_ok(digits) else m.group(0)


def redact(line):
    line = BEARER.sub(r"\1[TOKEN]", line)
    line = APIKEY.sub(r"\1[TOKEN]", line)
    line = EMAIL.sub("[EMAIL]", line)
    line = CARD.sub(card_sub, line)
    line = IPV4.sub("[IP]", line)
    return line


for line in sys.stdin:
    sys.stdout.write(redact(line))
PY
chmod +x /app/redact.py
# step: write the redacted copies
mkdir -p /app/redacted
for f in /app/logs/*.log; do python3 /app/redact.py < "$f" > "/app/redacted/$(basename "$f")"; done
