#!/bin/bash
set -e
cd /app/catalog-service

# a small helper that resolves conflict hunks in a file: ours | theirs | both
cat > /tmp/resolve.py <<'PY'
import sys
path, pick = sys.argv[1], sys.argv[2]
out, ours, theirs, state = [], [], [], None
for line in open(path).read().splitlines(True):
    if line.startswith("<<<<<<< "):
        state, ours, theirs = "ours", [], []
    elif line.startswith("=======") and state == "ours":
        state = "theirs"
    elif line.startswith(">>>>>>> ") and state == "theirs":
        out += {"ours": ours, "theirs": theirs, "both": ours + theirs}[pick]
        state = None
    elif state == "ours":
        ours.append(line)
    elif state == "theirs":
        theirs.append(line)
    else:
        out.append(line)
open(path, "w").write("".join(out))
PY

# step: start the merge (it stops on conflicts)
git merge feature/bulk-pricing || true

# step: catalog/ takes the feature side of conflicting hunks
python3 /tmp/resolve.py catalog/pricing.py theirs
git add catalog/pricing.py

# step: config/ keeps main's side of conflicting hunks (clean hunks like [feed] stay)
python3 /tmp/resolve.py config/defaults.ini ours
git add config/defaults.ini

# step: CHANGELOG keeps both entry lists, main's first
python3 /tmp/resolve.py CHANGELOG.md both
git add CHANGELOG.md

# step[easy-to-miss]: main's new invoice_lines() still calls the renamed apply_discount - fix it inside the merge, then commit
sed -i 's/from .pricing import apply_price_rule$/from .pricing import apply_price_rule/; s/unit = apply_discount(price, discount_pct)/unit = apply_price_rule(price, discount_pct, qty)/' catalog/orders.py
python3 -m unittest discover -s tests
git add catalog/orders.py
git commit -q --no-edit
