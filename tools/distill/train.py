#!/usr/bin/env python3
"""Tunes the evaluation's weights on positions labelled with their exact value (Texel
tuning): every term's count in each position is read from the engine (`eval`), the
evaluation is the tapered sum of counts times weights, and the weights minimise the squared
error between sigmoid(evaluation / K) and the goats' result (1 win, 1/2 draw, 0 loss),
K being first fitted to the weights in use. Full-batch Adam from those weights, with a pull
towards them (--l2); a share of the positions (--holdout, drawn with --seed) is kept out to
report the error on positions not trained on. Writes engine/eval_tuned.c (or --out).

    python3 tools/distill/train.py --engine build/bin/baghchal build/distill/train-*.tsv

The input files are sample.py's (OBX, value for the goats, distance). Needs numpy.
"""
import argparse
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import weights as W  # noqa: E402

GOATS_TOTAL = 20


def read_positions(paths):
    obx, value = [], []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                a = line.rstrip("\n").split("\t")
                if len(a) < 2:
                    raise SystemExit(f"train.py: {path}: not a line of sample.py's: {line.strip()[:60]!r}")
                obx.append(a[0])
                value.append(int(a[1]))
    return obx, np.array(value, dtype=np.float64)


def term_counts(engine, positions, nterms):
    """The count of every term in each position, and its goats in hand, from the engine."""
    script = "".join(f"position obx {p}\neval\n" for p in positions) + "quit\n"
    run = subprocess.run([engine], input=script, capture_output=True, text=True, check=True)
    counts = np.zeros((len(positions), nterms), dtype=np.float64)
    hand = np.zeros(len(positions), dtype=np.float64)
    row, term = -1, 0
    for line in run.stdout.splitlines():
        if line.startswith("info string error"):
            raise SystemExit(f"train.py: the engine said: {line}")
        if line.startswith("term "):
            row += 1
            term = 0
        elif line.startswith("Phase: "):
            hand[row] = GOATS_TOTAL - int(line.split()[1])
        elif row >= 0 and term < nterms and not line.startswith("Total"):
            counts[row, term] = int(line.split()[-4])
            term += 1
    if row + 1 != len(positions):
        raise SystemExit(f"train.py: the engine evaluated {row + 1} of {len(positions)} positions")
    return counts, hand


def features(counts, hand):
    """Columns: each term's count tapered towards mg (goats in hand), then towards eg."""
    h = (hand / GOATS_TOTAL)[:, None]
    return np.hstack([counts * h, counts * (1 - h)])


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def loss(x, y, w, k):
    return float(np.mean((sigmoid(x @ w / k) - y) ** 2))


def fit_k(x, y, w):
    best = min((loss(x, y, w, k), k) for k in np.arange(20, 1000, 10))
    return best[1]


def tune(x, y, w0, k, l2, steps, lr):
    w = w0.copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, steps + 1):
        s = sigmoid(x @ w / k)
        grad = x.T @ ((s - y) * s * (1 - s)) * (2 / (k * len(y))) + 2 * l2 * (w - w0)
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-12)
    return w


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="+", help="sample.py's files")
    ap.add_argument("--engine", required=True, help="the engine executable (reads the terms' counts)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--holdout", type=float, default=0.1)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--l2", type=float, default=1e-9)
    ap.add_argument("--out", default=os.path.join(W.ROOT, "engine", "eval_tuned.c"))
    a = ap.parse_args(argv)
    terms = W.terms()
    names = [t[1] for t in terms]
    obx, value = read_positions(a.data)
    counts, hand = term_counts(a.engine, obx, len(terms))
    x = features(counts, hand)
    y = (value + 1) / 2
    rng = np.random.default_rng(a.seed)
    test = rng.random(len(y)) < a.holdout
    w0 = np.array([t[2] for t in terms] + [t[3] for t in terms], dtype=np.float64)
    k = fit_k(x[~test], y[~test], w0)
    print(f"{len(y)} positions ({int(test.sum())} held out), K = {k}")
    print(f"hand-set weights: error {loss(x[~test], y[~test], w0, k):.5f} trained, {loss(x[test], y[test], w0, k):.5f} held out")
    w = tune(x[~test], y[~test], w0, k, a.l2, a.steps, a.lr)
    wi = np.clip(np.round(w), -32768, 32767)
    print(f"tuned weights:    error {loss(x[~test], y[~test], wi, k):.5f} trained, {loss(x[test], y[test], wi, k):.5f} held out")
    n = len(terms)
    for i, t in enumerate(terms):
        print(f"  {t[1]:28s} {t[2]:6d} {t[3]:6d} -> {int(wi[i]):6d} {int(wi[n + i]):6d}")
    data = W.blob(names, wi[:n], wi[n:])
    made_by = "python3 tools/distill/train.py --engine ENGINE " + " ".join(os.path.basename(p) for p in a.data) + \
        f" --seed {a.seed} --holdout {a.holdout} --steps {a.steps} --lr {a.lr} --l2 {a.l2}"
    note = (f"{len(y)} positions, K {k}: error {loss(x[test], y[test], w0, k):.5f} with the hand-set weights, "
            f"{loss(x[test], y[test], wi, k):.5f} tuned, on the {int(test.sum())} held out.")
    W.write_c(a.out, data, made_by, note)


if __name__ == "__main__":
    main()
