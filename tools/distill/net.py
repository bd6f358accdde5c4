#!/usr/bin/env python3
"""Trains the network of the evaluation on positions labelled with their exact value, and
writes it as engine/eval_net.c.

Inputs: a goat on each of the 25 points, a tiger on each, one for each count of goats in
hand (0 to 20) and of goats captured (0 to 5), goats to move. The first layer is K base units
seen through each of the board's 8 symmetries (8 K ReLU units whose board weights are one
unit's, the points permuted); each base unit's 8 images are pooled (their mean), which is the same for a position and its images, so
the evaluation is symmetric exactly, after rounding too. The K pooled values go to J ReLU
units (--j, 0 for none), and the output is a weighted sum of the pooled values and the J units.
sigmoid(output) is fitted to the goats' result (1 win, 1/2 draw, 0 loss) by squared error (or
--loss ce, cross-entropy), minibatch Adam from weights drawn with --seed; --holdout of the
positions (drawn with the seed) is kept out to report the error on positions not trained on.

    python3 tools/distill/net.py build/distill/train-*.tsv build/distill/children.tsv

The input files are sample.py's (and children.py's). Needs numpy.
"""
import argparse
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from weights import fnv1a  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAGIC = b"BCNN"
VERSION = 4
BUCKETS = (1, 4)      # output layers: one, or one for each phase by goats in hand (none, 1-7, 8-14, 15-20)
HANDS = 21            # goats in hand: 0 to 20
CAPS = 6              # goats captured: 0 to 5
SCALAR = HANDS + CAPS + 1  # one input for each count of goats in hand and of goats captured, goats to move
W_SCALE = 64          # int16 weights
B_SCALE = 32768       # the second layer's biases and the output bias (int32)
CP = 400              # centipawns for out = 1 (sigmoid(cp / 400))


def symmetries():
    """The 8 permutations of the points (index row * 5 + col), identity first."""
    maps = [lambda r, c: (r, c), lambda r, c: (c, 4 - r), lambda r, c: (4 - r, 4 - c), lambda r, c: (4 - c, r),
            lambda r, c: (r, 4 - c), lambda r, c: (4 - r, c), lambda r, c: (c, r), lambda r, c: (4 - c, 4 - r)]
    out = []
    for f in maps:
        perm = [0] * 25
        for sq in range(25):
            r, c = f(sq // 5, sq % 5)
            perm[sq] = r * 5 + c
        out.append(perm)
    return out


def read(paths):
    """The positions as (board, scalars, result): board the 50 inputs (a goat on each point,
    then a tiger), scalars the count of goats in hand and of goats captured (one input each),
    goats to move; result 1, 1/2, 0."""
    cells, hands, caps, sides, ys = [], [], [], [], []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                a = line.rstrip("\n").split("\t")
                try:
                    board, side, hand, cap = a[0].split()
                    s = board.replace("/", "")
                    if len(s) != 25 or side not in ("g", "t") or hand[0] != "@" or cap[0] != "c" \
                            or not 0 <= int(hand[1:]) < HANDS or not 0 <= int(cap[1:]) < CAPS:
                        raise ValueError
                    cells.append(s)
                    hands.append(int(hand[1:]))
                    caps.append(int(cap[1:]))
                    sides.append(side == "g")
                    ys.append(int(a[1]))
                except (ValueError, IndexError):
                    raise SystemExit(f"net.py: {path}: not a line of sample.py's: {line.strip()[:60]!r}")
    grid = np.frombuffer("".join(cells).encode("ascii"), np.uint8).reshape(-1, 25)
    board = np.concatenate([grid == ord("G"), grid == ord("T")], axis=1).astype(np.float32)
    n = len(ys)
    scalar = np.zeros((n, SCALAR), np.float32)
    scalar[np.arange(n), np.array(hands)] = 1
    scalar[np.arange(n), HANDS + np.array(caps)] = 1
    scalar[:, HANDS + CAPS] = sides
    return board, scalar, (np.array(ys, np.float32) + 1) / 2


def bucket_of(xs, nb):
    """Each position's output layer: 0 with one, else by goats in hand: 0 none, 1 for 1-7,
    2 for 8-14, 3 for 15-20 (the engine's net_bucket)."""
    if nb == 1:
        return np.zeros(len(xs), np.int8)
    return ((np.argmax(xs[:, :HANDS], axis=1) + 6) // 7).astype(np.int8)


class Net:
    def __init__(self, k, j, rng, nb=1):
        self.k, self.j, self.nb = k, j, nb
        self.p = [rng.normal(0, 0.1, (50, k)).astype(np.float32),  # board weights of the K base units
                  rng.normal(0, 0.1, (SCALAR, k)).astype(np.float32),
                  np.zeros(k, np.float32),                          # bias
                  rng.normal(0, 0.1, (nb, k)).astype(np.float32),   # each pooled value to the output, by bucket
                  np.zeros(nb, np.float32),                         # output bias
                  rng.normal(0, 0.3 / np.sqrt(k), (nb, k, j)).astype(np.float32),  # pooled values to the J units
                  np.zeros((nb, j), np.float32),
                  rng.normal(0, 0.1, (nb, j)).astype(np.float32)]   # the J units to the output
        self.perms = np.array([p + [25 + q for q in p] for p in symmetries()])

    def forward(self, xb, xs, p=None):
        """The first layer's units (as (8, B, K): symmetry, position, unit), the pooled values,
        each bucket's positions and second-layer units, and the output."""
        B, S, c, V, d, W2, b2, V2 = p or self.p
        x8 = xb[:, self.perms].transpose(1, 0, 2)                      # (8, B, 50)
        h = np.maximum(x8 @ B + (xs @ S + c), 0)
        hs = h.sum(0) / 8
        bk = bucket_of(xs, self.nb)
        out = np.empty(len(xs), np.float32)
        parts = []
        for q in range(self.nb):
            idx = np.flatnonzero(bk == q) if self.nb > 1 else slice(None)
            z = np.maximum(hs[idx] @ W2[q] + b2[q], 0)
            out[idx] = hs[idx] @ V[q] + z @ V2[q] + d[q]
            parts.append((idx, z))
        return (x8, h, hs, parts), out

    def grads(self, xb, xs, y, ce=False):
        B, S, c, V, d, W2, b2, V2 = self.p
        (x8, h, hs, parts), out = self.forward(xb, xs)
        o = 1 / (1 + np.exp(-out))
        g = ((o - y) if ce else (o - y) * o * (1 - o) * 2) / len(y)
        gV, gd, gW2, gb2, gV2 = (np.zeros_like(a) for a in (V, d, W2, b2, V2))
        ghs = np.empty_like(hs)
        for q, (idx, z) in enumerate(parts):
            gq, hq = g[idx], hs[idx]
            gz = gq[:, None] * V2[q][None, :] * (z > 0)
            ghs[idx] = (gq[:, None] * V[q][None, :] + gz @ W2[q].T) / 8
            gV[q], gd[q], gW2[q], gb2[q], gV2[q] = hq.T @ gq, gq.sum(), hq.T @ gz, gz.sum(0), z.T @ gq
        gh = ghs[None] * (h > 0)                                       # (8, B, K)
        gB = np.einsum("sbi,sbk->ik", x8, gh, optimize=True)
        gzs = gh.sum(0)
        return [gB, xs.T @ gzs, gzs.sum(0), gV, gd, gW2, gb2, gV2]


def error(net, xb, xs, y, p=None):
    e = 0.0
    for i in range(0, len(y), 65536):
        out = net.forward(xb[i:i + 65536], xs[i:i + 65536], p)[1]
        e += float(np.sum((1 / (1 + np.exp(-out)) - y[i:i + 65536]) ** 2))
    return e / max(len(y), 1)


def quantised(net):
    """The weights as the file holds them (int16 scaled by W_SCALE, biases of the second layer
    and of the output int32 scaled by B_SCALE), in the parameters' order."""
    scales = [W_SCALE, W_SCALE, W_SCALE, W_SCALE, B_SCALE, W_SCALE, B_SCALE, W_SCALE]
    wide = [False, False, False, False, True, False, True, False]
    out = []
    for a, scale, big in zip(net.p, scales, wide):
        lim = 2**31 - 1 if big else 32767
        out.append(np.clip(np.round(a.astype(np.float64) * scale), -lim, lim).astype(np.int64))
    return out


def as_float(q):
    scales = [W_SCALE, W_SCALE, W_SCALE, W_SCALE, B_SCALE, W_SCALE, B_SCALE, W_SCALE]
    return [(a / s).astype(np.float32) for a, s in zip(q, scales)]


def blob(q, k, j, nb):
    """The file (engine/eval.h): magic, version, K, J, the number of output layers, then
    little-endian: the board weights point by point (50 x K), the scalars' 28 x K, the biases
    K (int16); then for each output layer: the pooled values' output weights K (int16), the
    second layer's K x J (int16), its biases J (int32), its output weights J (int16), the
    output bias (int32); an FNV-1a checksum of all before it."""
    B, S, c, V, d, W2, b2, V2 = q
    data = MAGIC + struct.pack("<HHHH", VERSION, k, j, nb)
    data += struct.pack(f"<{B.size + S.size + c.size}h", *B.ravel(), *S.ravel(), *c)
    for b in range(nb):
        data += struct.pack(f"<{k + k * j}h", *V[b], *W2[b].ravel())
        data += struct.pack(f"<{j}i", *b2[b]) + struct.pack(f"<{j}h", *V2[b])
        data += struct.pack("<i", int(d[b]))
    return data + struct.pack("<I", fnv1a(data))


def read_c(path):
    """The network of an eval_net.c write_c wrote, as (k, j, buckets, quantised weights)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    body = text[text.index("EVAL_NET_DATA[] = {") + len("EVAL_NET_DATA[] = {"):text.index("};")]
    data = bytes(int(x, 16) for x in body.replace(",", " ").split())
    if data[:4] != MAGIC or struct.unpack("<I", data[-4:])[0] != fnv1a(data[:-4]):
        raise SystemExit(f"net.py: {path}: not a network file of this format (magic or checksum)")
    version, k, j, nb = struct.unpack("<HHHH", data[4:12])
    if version != VERSION or nb not in BUCKETS:
        raise SystemExit(f"net.py: {path}: version {version} with {nb} output layers; this reads version {VERSION}")
    at = 12

    def take(fmt, count, shape):
        nonlocal at
        size = struct.calcsize(f"<{count}{fmt}")
        a = np.array(struct.unpack(f"<{count}{fmt}", data[at:at + size]), np.int64).reshape(shape)
        at += size
        return a
    B, S, c = take("h", 50 * k, (50, k)), take("h", SCALAR * k, (SCALAR, k)), take("h", k, (k,))
    V, W2, b2, V2, d = [], [], [], [], []
    for _ in range(nb):
        V.append(take("h", k, (k,)))
        W2.append(take("h", k * j, (k, j)))
        b2.append(take("i", j, (j,)))
        V2.append(take("h", j, (j,)))
        d.append(take("i", 1, ())[()])
    if at != len(data) - 4:
        raise SystemExit(f"net.py: {path}: {len(data) - 4 - at} bytes left over")
    return k, j, nb, [B, S, c, np.array(V), np.array(d), np.array(W2), np.array(b2), np.array(V2)]


def write_c(path, data, made_by, note):
    lines = ["/* The evaluation's network built into the library, in the format of eval.h (read and",
             " * checked by eval_net_load). Generated: do not edit; made by",
             f" *     {made_by}", f" * {note} */", '#include "eval.h"', "",
             "const uint8_t EVAL_NET_DATA[] = {"]
    for i in range(0, len(data), 12):
        lines.append("    " + " ".join(f"0x{b:02X}," for b in data[i:i + 12]))
    lines += ["};", "const size_t EVAL_NET_SIZE = sizeof EVAL_NET_DATA;", ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="+", help="sample.py's files")
    ap.add_argument("--k", type=int, default=64, help="base units (the first layer has 8 K)")
    ap.add_argument("--j", type=int, default=32, help="second-layer units (0: none)")
    ap.add_argument("--buckets", type=int, choices=BUCKETS,
                    help="output layers: 1 (the default), or 4 chosen by goats in hand (none, 1-7, 8-14, 15-20); "
                         "with --init of a network of one, 4 starts each from its one")
    ap.add_argument("--loss", choices=("mse", "ce"), default="mse")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--holdout", type=float, default=0.1)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--lr", type=float, default=0.003)
    ap.add_argument("--decay", action="store_true", help="the step size falls linearly to a tenth over the epochs")
    ap.add_argument("--out", default=os.path.join(ROOT, "engine", "eval_net.c"))
    ap.add_argument("--init", metavar="FILE",
                    help="trains on from the network of an eval_net.c (its K, J and buckets) instead of drawn weights")
    a = ap.parse_args(argv)
    weights = None
    if a.init:
        a.k, a.j, nb, weights = read_c(a.init)
        if a.buckets is not None and a.buckets != nb:
            if nb != 1:
                raise SystemExit(f"net.py: {a.init} has {nb} output layers; only a network of one can be given {a.buckets}")
            # the first layer (board, scalars, biases) is shared; each phase's layers copy the one
            weights = weights[:3] + [np.repeat(w, a.buckets, axis=0) for w in weights[3:]]
        a.buckets = a.buckets or nb
    a.buckets = a.buckets or 1
    xb, xs, y = read(a.data)
    rng = np.random.default_rng(a.seed)
    test = rng.random(len(y)) < a.holdout
    net = Net(a.k, a.j, rng, a.buckets)
    if weights is not None:
        net.p = as_float(weights)
        print(f"from {a.init}: error {error(net, xb[test], xs[test], y[test]):.5f} held out", flush=True)
    m = [np.zeros_like(p) for p in net.p]
    v = [np.zeros_like(p) for p in net.p]
    t = 0
    train = np.flatnonzero(~test)
    steps = a.epochs * ((len(train) + a.batch - 1) // a.batch)
    for epoch in range(a.epochs):
        order = rng.permutation(train)
        for i in range(0, len(order), a.batch):
            b = order[i:i + a.batch]
            lr = a.lr * (1 - 0.9 * t / steps) if a.decay else a.lr
            t += 1
            for p, g, mm, vv in zip(net.p, net.grads(xb[b], xs[b], y[b], a.loss == "ce"), m, v):
                mm *= 0.9
                mm += 0.1 * g
                vv *= 0.999
                vv += 0.001 * g * g
                p -= lr * (mm / (1 - 0.9 ** t)) / (np.sqrt(vv / (1 - 0.999 ** t)) + 1e-8)
        print(f"epoch {epoch + 1}: error {error(net, xb[test], xs[test], y[test]):.5f} held out", flush=True)
    q = quantised(net)
    held = error(net, xb[test], xs[test], y[test], as_float(q))
    print(f"rounded: {held:.5f} held out")
    made_by = "python3 tools/distill/net.py " + " ".join(os.path.basename(p) for p in a.data) + \
        f" --k {a.k} --j {a.j} --buckets {a.buckets} --loss {a.loss} --seed {a.seed} --holdout {a.holdout} --epochs {a.epochs} --batch {a.batch} --lr {a.lr}" + \
        (" --decay" if a.decay else "") + (f" --init {os.path.basename(a.init)}" if a.init else "")
    note = f"{len(y)} positions: error {held:.5f} on the {int(test.sum())} held out."
    write_c(a.out, blob(q, a.k, a.j, a.buckets), made_by, note)


if __name__ == "__main__":
    main()
