#!/usr/bin/env python3
"""Nodes an engine searches in `go movetime MS` right after `ucinewgame`, over the first N
positions of the critical set (tools/distill/critical.txt), without the database files and
under the draw rule: what a game's first move, or a benchmark of single positions, gets out
of its time. Prints the mean nodes and depth a position.

    python3 tools/bench-newgame.py build/bin/baghchal --hash 64 --count 200 --movetime 100
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "distill"))
from critical_bench import Player, load  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engine")
    ap.add_argument("--hash", type=int, default=64)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--movetime", type=int, default=100)
    ap.add_argument("--positions", default=os.path.join(HERE, "distill", "critical.txt"))
    a = ap.parse_args(argv)
    obx = [p[2] for p in load(a.positions)][:a.count]
    if not obx:
        raise SystemExit(f"bench-newgame.py: no positions in {a.positions}")
    try:
        engine = Player(a.engine, [("TablebasePath", "<empty>"), ("Repetition", "draw"), ("Hash", a.hash)])
    except OSError as e:
        raise SystemExit(f"bench-newgame.py: cannot run {a.engine}: {e.strerror}")
    nodes = depth = 0
    for o in obx:
        engine.best(o, f"movetime {a.movetime}")
        if engine.last_info:
            nodes += int(engine.last_info[engine.last_info.index("nodes") + 1])
            depth += int(engine.last_info[engine.last_info.index("depth") + 1])
    engine.close()
    print(f"{len(obx)} positions, Hash {a.hash}, movetime {a.movetime}: "
          f"{nodes / len(obx):.0f} nodes and depth {depth / len(obx):.2f} a position")


if __name__ == "__main__":
    sys.exit(main())
