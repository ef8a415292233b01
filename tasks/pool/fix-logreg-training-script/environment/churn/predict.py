#!/usr/bin/env python3
"""Production churn scorer (deployed as-is on the billing hosts; stdlib only).

Usage: predict.py INPUT.csv [MODEL.json] [OUTPUT.csv]

Applies the logistic model in MODEL.json (default model.json) to the feature
columns of INPUT.csv exactly as they appear in the file, and writes
OUTPUT.csv (default predictions.csv) with the columns row,probability,churn.
If INPUT.csv has a 'churned' column, the accuracy is printed as well.
"""
import csv
import json
import math
import sys


def main(argv):
    inp = argv[1]
    model_path = argv[2] if len(argv) > 2 else "model.json"
    out_path = argv[3] if len(argv) > 3 else "predictions.csv"
    model = json.load(open(model_path))
    feats, weights, bias = model["features"], model["weights"], model["bias"]
    correct = total = 0
    with open(inp, newline="") as f, open(out_path, "w", newline="") as g:
        w = csv.writer(g)
        w.writerow(["row", "probability", "churn"])
        for i, rec in enumerate(csv.DictReader(f)):
            z = bias + sum(wt * float(rec[name]) for name, wt in zip(feats, weights))
            z = max(-60.0, min(60.0, z))
            prob = 1.0 / (1.0 + math.exp(-z))
            pred = int(prob >= 0.5)
            w.writerow([i, f"{prob:.6f}", pred])
            if "churned" in rec:
                total += 1
                correct += pred == int(rec["churned"])
    if total:
        print(f"accuracy: {correct / total:.3f} on {total} rows")


if __name__ == "__main__":
    main(sys.argv)
