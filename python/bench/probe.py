#!/usr/bin/env python3
"""A database probe from Python (Tablebase.probe_wdl) against the same probes in C.

Random games are played into the movement phase; their positions are probed through the
package, then by a C loop over the same positions (Tablebase._bench_probe, the library's
tb_probe): nanoseconds per probe for both and the binding's cost, best of the rounds.

    python bench/probe.py DIR [--positions N] [--rounds R]
"""
import argparse
import random
import time

import libbaghchal


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="the folder holding baghchal.tb")
    ap.add_argument("--positions", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(1)
    boards = []
    while len(boards) < args.positions:
        b = libbaghchal.Board(repetition="draw")
        while b.goats_in_hand and b.legal_moves:
            b.push(rng.choice(b.legal_moves))
        for _ in range(rng.randrange(40)):
            moves = b.legal_moves
            if not moves:
                break
            b.push(rng.choice(moves))
        if b.goats_in_hand == 0 and b.goats_captured < 5:
            boards.append(b.copy(stack=False))
    with libbaghchal.Tablebase(args.dir) as tb:
        best_py = best_c = float("inf")
        for _ in range(args.rounds):
            probe = tb.probe_wdl
            t = time.perf_counter()
            for b in boards:
                probe(b)
            best_py = min(best_py, (time.perf_counter() - t) / len(boards) * 1e9)
            probes, seconds, _ = tb._bench_probe(boards, 1)
            best_c = min(best_c, seconds / probes * 1e9)
    print(f"python probe_wdl: {best_py:.0f} ns a probe")
    print(f"C tb_probe:       {best_c:.0f} ns a probe")
    print(f"binding's cost:   {best_py - best_c:.0f} ns ({len(boards)} positions, best of {args.rounds} rounds)")


if __name__ == "__main__":
    main()
