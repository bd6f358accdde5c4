#!/usr/bin/env python3
"""More training positions where the evaluation must tell moves apart: every position a legal
move leads to from the positions of sample.py's files, each distinct one once (the inputs'
own positions left out), labelled with the solution's value under the draw rule, in
sample.py's format. A position where the side to move still has a choice between keeping and
losing the value gives children of both kinds: what a critical position asks of the search.
--share keeps that share of the parents (drawn with --seed). Same input and seed, same file.

    build/venv/bin/python tools/distill/children.py --tb DIR build/distill/train-*.tsv --out build/distill/children.tsv

Needs the Python package libbaghchal (docs/python.md) and the whole solution.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from critical import whole_solution  # noqa: E402
from libbaghchal import GOATS, Board  # noqa: E402

RESULT = {"win": 1, "draw": 0, "loss": -1}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="+", help="sample.py's files")
    ap.add_argument("--tb", required=True)
    ap.add_argument("--share", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    tb = whole_solution(a.tb, "children.py", "labelling")
    parents = []
    for path in a.data:
        with open(path, encoding="utf-8") as f:
            parents += [line.split("\t")[0] for line in f if line.strip()]
    seen = set(parents)
    rng = random.Random(a.seed)
    rows = 0
    with open(a.out, "w", encoding="utf-8") as out:
        for obx in parents:
            if rng.random() >= a.share:
                continue
            try:
                board = Board(obx, repetition="draw")
            except Exception as e:  # noqa: BLE001 - a bad line is named, not skipped
                sys.exit(f"children.py: not a position: {obx!r}: {e}")
            for move in list(board.legal_moves):
                board.push(move)
                if not board.is_game_over():
                    key = " ".join(board.obx().split()[:4])
                    if key not in seen:
                        seen.add(key)
                        v = tb.probe(board.copy(stack=False))
                        goats = RESULT[v.result] if board.turn == GOATS else -RESULT[v.result]
                        d = v.distance if v.distance is not None else "-"
                        out.write(f"{key}\t{goats}\t{d}\n")
                        rows += 1
                board.pop()
    print(f"{rows} positions", file=sys.stderr)


if __name__ == "__main__":
    main()
