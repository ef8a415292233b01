#!/bin/bash
set -e
cd /app
mkdir -p analysis

# step: inspect the recording and its sample rate
cat data/meta.json
head -3 data/pump_velocity.csv; wc -l data/pump_velocity.csv

# step[easy-to-miss]: write peaks.py; remove the full linear trend (not just the mean) before windowing
cat > analysis/peaks.py <<'PY'
#!/usr/bin/env python3
"""Spectral peaks of a drifting vibration signal. Usage: peaks.py SIGNAL.csv META.json OUT.json"""
import json
import sys

import numpy as np


def peaks(x, fs, count=3):
    n = np.arange(len(x))
    slope, intercept = np.polyfit(n, x, 1)
    x = x - (slope * n + intercept)
    w = np.hanning(len(x))
    mag = np.abs(np.fft.rfft(x * w))
    k = np.arange(1, len(mag) - 1)
    k = k[(mag[k] > mag[k - 1]) & (mag[k] > mag[k + 1])]
    top = k[np.argsort(mag[k])[::-1][:count]]
    return [{"freq_hz": round(float(i * fs / len(x)), 3),
             "amplitude": round(float(2 * mag[i] / w.sum()), 3)} for i in top]


def main(sig, meta, out):
    x = np.loadtxt(sig, skiprows=1)
    fs = float(json.load(open(meta))["sample_rate_hz"])
    with open(out, "w") as f:
        json.dump(peaks(x, fs), f, indent=2)


if __name__ == "__main__":
    main(*sys.argv[1:4])
PY

# step: run it on the PV-204 recording
python3 analysis/peaks.py data/pump_velocity.csv data/meta.json analysis/peaks.json
cat analysis/peaks.json
