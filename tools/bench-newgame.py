#!/usr/bin/env python3
"""Nodes an engine searches in `go movetime MS` right after `ucinewgame`, over the first N
positions of the critical set (tools/distill/critical.txt), without the database files and
under the draw rule: what a game's first move, or a benchmark of single positions, gets out
of its time. Prints the mean nodes and depth a position.

    python3 tools/bench-newgame.py build/bin/baghchal --hash 64 --count 200 --movetime 100
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engine")
    ap.add_argument("--hash", type=int, default=64)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--movetime", type=int, default=100)
    ap.add_argument("--positions", default=os.path.join(HERE, "distill", "critical.txt"))
    a = ap.parse_args(argv)
    with open(a.positions, encoding="utf-8") as f:
        obx = [line.split("\t")[2] for line in f if line.strip() and not line.startswith("#")][:a.count]
    if not obx:
        raise SystemExit(f"bench-newgame.py: no positions in {a.positions}")
    try:
        p = subprocess.Popen([a.engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    except OSError as e:
        raise SystemExit(f"bench-newgame.py: cannot run {a.engine}: {e.strerror}")

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    for opt in ("TablebasePath value <empty>", "Repetition value draw", f"Hash value {a.hash}"):
        send("setoption name " + opt)
    nodes = depth = 0
    for o in obx:
        send("ucinewgame")
        send("position obx " + o)
        send(f"go movetime {a.movetime}")
        last = None
        while True:
            line = p.stdout.readline()
            if not line:
                raise SystemExit("bench-newgame.py: the engine exited")
            if line.startswith("info string error"):
                raise SystemExit(f"bench-newgame.py: the engine said: {line.strip()}")
            if line.startswith("info depth"):
                last = line.split()
            if line.startswith("bestmove"):
                break
        if last:
            nodes += int(last[last.index("nodes") + 1])
            depth += int(last[last.index("depth") + 1])
    send("quit")
    p.wait()
    print(f"{len(obx)} positions, Hash {a.hash}, movetime {a.movetime}: "
          f"{nodes / len(obx):.0f} nodes and depth {depth / len(obx):.2f} a position")


if __name__ == "__main__":
    sys.exit(main())
