#!/bin/bash
set -e
cd /app/churn

# step: reproduce the problem and read how predict.py applies the model
python3 train.py | tail -3
sed -n 1,40p predict.py

# step: standardize per feature (axis=0) and scale validation data with the training statistics
python3 - <<'PY'
from pathlib import Path
p = Path("train.py"); s = p.read_text()
s = s.replace("mu = X.mean(axis=1, keepdims=True)", "mu = X.mean(axis=0)")
s = s.replace("sigma = X.std(axis=1, keepdims=True)", "sigma = X.std(axis=0)")
s = s.replace("    Zv, _, _ = standardize(Xv)\n", "    Zv = (Xv - mu) / sigma\n")
p.write_text(s)
PY

# step: fix the gradient sign (descend on the log-loss)
sed -i 's|grad_w = Z.T @ (y - p) / n|grad_w = Z.T @ (p - y) / n|' train.py

# step: update the bias on every epoch, not only when logging
python3 - <<'PY'
from pathlib import Path
p = Path("train.py"); s = p.read_text()
s = s.replace("        w -= LR * grad_w\n", "        w -= LR * grad_w\n        b -= LR * grad_b\n")
s = s.replace("            print(f\"epoch {epoch:4d}  loss {loss:.4f}\")\n            b -= LR * grad_b\n",
              "            print(f\"epoch {epoch:4d}  loss {loss:.4f}\")\n")
p.write_text(s)
PY
grep -n "b -= LR" train.py

# step[easy-to-miss]: predict.py applies the weights to raw features, so fold the standardization into the saved weights, retrain and check with predict.py
python3 - <<'PY'
from pathlib import Path
p = Path("train.py"); s = p.read_text()
old = '        json.dump({"features": FEATURES, "weights": w.tolist(), "bias": float(b)}, f, indent=2)\n'
new = ('        # predict.py scores raw feature values: express the model in raw units\n'
       '        w_raw = w / sigma\n'
       '        b_raw = b - float(np.sum(w * mu / sigma))\n'
       '        json.dump({"features": FEATURES, "weights": w_raw.tolist(), "bias": b_raw}, f, indent=2)\n')
assert old in s
p.write_text(s.replace(old, new))
PY
python3 train.py | tail -2
python3 predict.py data/val.csv model.json /tmp/val_pred.csv
