import hashlib, json, os, sys

FAILS = []
D = "/app/hooks"
SRC_SHA256 = {
    'order-created': '3eba7edacf8747de512c74d437de5a6b0cc60c773f1a1f7e73ca29aaf7d3e8d5',
    'order-paid': 'c398137b23b0213f428828d13a64fd2fd043b7f6bff3f63f5d9190966123d6e5',
}
WANT = {"order-created": {
    "event": "order.created",
    "delivery_id": "whd_7Q2M91",
    "order": {
        "id": 50213, "customer": "Ines Marquez", "note": "leave at the door, ring twice", "total": 84.9,
        "currency": "EUR", "paid": True, "coupon": None,
        "lines": [{"sku": "MUG-RED", "qty": 2, "title": "Red mug 350 ml"},
                  {"sku": "TEA-EARL", "qty": 1, "title": "Earl Grey, 100 g tin"}],
    },
    "tags": ["web", "first order"],
}, "order-paid": {
    "event": "order.paid",
    "delivery_id": "whd_7Q2M97",
    "order_id": 50213,
    "payment": {"method": "card", "brand": "Visa Debit", "amount": 84.9, "currency": "EUR",
                "reference": "PAY 2024 0517 0031"},
    "retry": False,
}}


def fail(msg):
    FAILS.append(msg)


def whitespace_outside_strings(text):
    """The whitespace characters that are not inside a JSON string literal."""
    found, in_string, escaped = [], False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch.isspace():
            found.append(ch)
    return found


def finish():
    for m in FAILS:
        print("FAIL:", m)
    if FAILS:
        sys.exit(1)
    print("all checks passed")


def check(name):
    src, out = os.path.join(D, name + ".json"), os.path.join(D, name + ".min.json")
    if not os.path.isfile(out):
        fail(f"{out} is missing")
    else:
        with open(out, encoding="utf-8", errors="replace") as f:
            text = f.read().rstrip("\n").rstrip(" ")
        try:
            data = json.loads(text)
        except ValueError as exc:
            fail(f"{out} is not valid JSON: {exc}")
        else:
            if json.dumps(data, sort_keys=True) != json.dumps(WANT[name], sort_keys=True):
                fail(f"{out} does not hold the same data as {src}")
            elif "\n" in text:
                fail(f"{out} spans several lines; it must be a single line")
            elif whitespace_outside_strings(text):
                fail(f"{out} still has spaces or line breaks between the JSON elements")
    if not os.path.isfile(src):
        fail(f"{src} is missing")
    else:
        with open(src, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != SRC_SHA256[name]:
                fail(f"{src} was changed; it must stay pretty-printed as it was")


for name in WANT:
    check(name)
finish()
