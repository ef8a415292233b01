#!/usr/bin/env python3
"""Train the churn classifier (logistic regression, full-batch gradient descent).

Reads data/train.csv and data/val.csv, writes model.json for the production
scorer (predict.py).  Run from this directory:  python3 train.py
"""
import json

import numpy as np

FEATURES = ["tenure_months", "monthly_spend", "support_calls", "data_gb", "age_years"]
LABEL = "churned"
LR = 0.1
EPOCHS = 1000


def load(path):
    data = np.genfromtxt(path, delimiter=",", names=True)
    X = np.column_stack([data[f] for f in FEATURES]).astype(float)
    y = data[LABEL].astype(float)
    return X, y


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def standardize(X):
    # features live on very different scales (months, euros, GB...), so
    # gradient descent needs them centred and scaled
    mu = X.mean(axis=1, keepdims=True)
    sigma = X.std(axis=1, keepdims=True)
    return (X - mu) / sigma, mu, sigma


def main():
    X, y = load("data/train.csv")
    Xv, yv = load("data/val.csv")
    Z, mu, sigma = standardize(X)
    Zv, _, _ = standardize(Xv)

    n, d = Z.shape
    w = np.zeros(d)
    b = 0.0
    for epoch in range(EPOCHS):
        p = sigmoid(Z @ w + b)
        grad_w = Z.T @ (y - p) / n
        grad_b = np.mean(p - y)
        w -= LR * grad_w
        if epoch % 100 == 0:
            loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
            print(f"epoch {epoch:4d}  loss {loss:.4f}")
            b -= LR * grad_b

    acc = np.mean((sigmoid(Zv @ w + b) > 0.5) == yv)
    print(f"validation accuracy: {acc:.3f}")

    with open("model.json", "w") as f:
        json.dump({"features": FEATURES, "weights": w.tolist(), "bias": float(b)}, f, indent=2)
    print("wrote model.json")


if __name__ == "__main__":
    main()
