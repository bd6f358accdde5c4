#!/usr/bin/env python3
"""Random playouts from the start through the package against the same playouts in C.

Each playout starts a new game and, until the game ends, takes the legal moves, picks one
uniformly and plays it (under the `forbid` rule unless told otherwise). The C side is the same
loop over the same library (game_legal_moves, game_play), compiled into the extension with the
same flags: libbaghchal._core._c_playouts. Prints playouts and plies per second for both and the
ratio. A benchmark, not a test: the figures depend on the machine and its load.

    python bench/playouts.py [--playouts N] [--rounds R] [--repetition forbid|draw]
"""
import argparse
import random
import time

import libbaghchal
from libbaghchal import _core


def python_playouts(count: int, seed: int, repetition: str) -> int:
    rand = random.Random(seed).random
    plies = 0
    for _ in range(count):
        board = libbaghchal.Board(repetition=repetition)
        while True:
            moves = board.legal_moves
            if not moves:
                break
            board.push(moves[int(rand() * len(moves))])
            plies += 1
    return plies


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--playouts", type=int, default=2000, help="playouts per round in Python (C runs 10x as many)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds; the best of each side is reported")
    ap.add_argument("--repetition", choices=["forbid", "draw"], default="forbid")
    args = ap.parse_args()
    best_py = best_c = 0.0
    plies_py = plies_c = 0.0
    for r in range(args.rounds):
        t = time.perf_counter()
        plies = python_playouts(args.playouts, r + 1, args.repetition)
        dt = time.perf_counter() - t
        if args.playouts / dt > best_py:
            best_py, plies_py = args.playouts / dt, plies / dt
        n = args.playouts * 10
        t = time.perf_counter()
        _, plies = _core._c_playouts(n, r + 1, args.repetition)
        dt = time.perf_counter() - t
        if n / dt > best_c:
            best_c, plies_c = n / dt, plies / dt
    print(f"python: {best_py:,.0f} playouts/s, {plies_py:,.0f} plies/s")
    print(f"C:      {best_c:,.0f} playouts/s, {plies_c:,.0f} plies/s")
    print(f"ratio:  {best_py / best_c:.2f} of C's speed ({args.repetition}, best of {args.rounds} rounds)")


if __name__ == "__main__":
    main()
