#!/usr/bin/env python3
"""Keeps a benchmark's positions out of the training: copies sample.py's and children.py's
files without the positions of a benchmark file (critical.txt's format) and without every
position one legal move leads to from them, so that the benchmark measures the network on
positions it was not trained on, and whose children it was not shown either.

    build/venv/bin/python tools/distill/holdout.py --positions tools/distill/critical.txt \\
        build/distill/*.tsv --out build/distill/clean

Writes each input file under --out with the same name and prints how many lines it left out.
Needs the Python package libbaghchal (docs/python.md); not the solution.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from critical_bench import load  # noqa: E402
from libbaghchal import Board  # noqa: E402


def key(obx):
    return " ".join(obx.split()[:4])


def held_out(path):
    """The positions of a benchmark file (read as critical_bench.py reads it) and every
    position one move from them."""
    try:
        positions = load(path)
    except ValueError:
        sys.exit(f"holdout.py: {path}: not a line of critical.txt's (phase, side, OBX, value, moves)")
    keys = set()
    for _, _, obx, _, _ in positions:
        try:
            board = Board(obx, repetition="draw")
        except ValueError as e:
            sys.exit(f"holdout.py: {path}: not a position: {obx!r}: {e}")
        keys.add(key(board.obx()))
        for move in list(board.legal_moves):
            board.push(move)
            keys.add(key(board.obx()))
            board.pop()
    return keys


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="+", help="sample.py's and children.py's files")
    ap.add_argument("--positions", required=True, help="the benchmark's positions (critical.txt's format)")
    ap.add_argument("--out", required=True, help="the folder the copies go to")
    a = ap.parse_args(argv)
    keys = held_out(a.positions)
    os.makedirs(a.out, exist_ok=True)
    for path in a.data:
        dest = os.path.join(a.out, os.path.basename(path))
        if os.path.abspath(dest) == os.path.abspath(path):
            sys.exit(f"holdout.py: {path} would be written over")
        kept = left = 0
        with open(path, encoding="utf-8") as f, open(dest, "w", encoding="utf-8") as out:
            for line in f:
                if line.split("\t", 1)[0] in keys:
                    left += 1
                else:
                    out.write(line)
                    kept += 1
        print(f"{os.path.basename(path)}: {kept} kept, {left} left out", file=sys.stderr)
    print(f"{len(keys)} positions held out", file=sys.stderr)


if __name__ == "__main__":
    main()
