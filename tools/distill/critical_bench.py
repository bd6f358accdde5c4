#!/usr/bin/env python3
"""The share of critical positions where an engine keeps the value: each position of the set
(tools/distill/critical.txt) is given to the engine executable without the databases, under
the draw rule, after `ucinewgame`, with `go movetime MS`; its bestmove keeps the value when
it is one of the position's value-keeping moves. Several engine processes may share the work
(--jobs); --sample N takes N positions drawn with --seed instead of all of them.

    python3 tools/distill/critical_bench.py build/bin/baghchal --movetime 100 --jobs 2
    python3 tools/distill/critical_bench.py build/bin/baghchal --movetime 1000 --sample 300 --seed 1

Prints the share by phase and side to move with a 95% Wilson interval, and the positions
missed with --misses FILE. Needs only Python's standard library.
"""
import argparse
import math
import os
import random
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            phase, side, obx, value, moves = line.rstrip("\n").split("\t")
            out.append((phase, side, obx, value, set(moves.upper().split())))
    return out


class Player:
    def __init__(self, exe, options):
        self.p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.last_info = None  # the last search's last `info depth` line, split (None: no report)
        for name, value in options:
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.wait("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait(self, prefix):
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("critical_bench.py: the engine exited")
            if line.startswith("info string error"):
                raise SystemExit(f"critical_bench.py: the engine said: {line.strip()}")
            if line.startswith("info depth"):
                self.last_info = line.split()
            if line.startswith(prefix):
                return line

    def best(self, obx, limit):
        self.last_info = None
        self.send("ucinewgame")
        self.send(f"position obx {obx}")
        self.send(f"go {limit}")
        return self.wait("bestmove").split()[1].upper()

    def close(self):
        self.send("quit")
        self.p.wait()


def wilson(k, n, z=1.96):
    if n == 0:
        return 0.0, 0.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engine", help="the engine executable")
    ap.add_argument("--positions", default=os.path.join(HERE, "critical.txt"))
    ap.add_argument("--movetime", type=int, default=100)
    ap.add_argument("--nodes", type=int, default=0, help="go nodes N instead of movetime (a figure the load does not change)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--sample", type=int, default=0, help="this many positions drawn at random (0: all)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hash", type=int, default=16)
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="another setoption for the engine (repeatable)")
    ap.add_argument("--misses", help="write the positions missed, with the move played, to this file")
    a = ap.parse_args(argv)
    positions = load(a.positions)
    if a.sample and a.sample < len(positions):
        positions = random.Random(a.seed).sample(positions, a.sample)
    options = [("Repetition", "draw"), ("TablebasePath", "<empty>"), ("Hash", a.hash)]
    options += [tuple(o.split("=", 1)) for o in a.option]
    limit = f"nodes {a.nodes}" if a.nodes else f"movetime {a.movetime}"
    results = [None] * len(positions)
    next_index = [0]
    lock = threading.Lock()

    def work():
        player = Player(a.engine, options)
        while True:
            with lock:
                i = next_index[0]
                next_index[0] += 1
            if i >= len(positions):
                break
            results[i] = player.best(positions[i][2], limit)
        player.close()

    threads = [threading.Thread(target=work) for _ in range(max(1, a.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    table = {}
    misses = []
    for pos, move in zip(positions, results):
        kept = move in pos[4]
        for key in ((pos[0], pos[1]), (pos[0], "both"), ("all", "both")):
            k, n = table.get(key, (0, 0))
            table[key] = (k + kept, n + 1)
        if not kept:
            misses.append((pos, move))
    print(f"engine {a.engine}, go {limit}, {len(positions)} positions"
          f"{' (sample, seed %d)' % a.seed if a.sample else ''}, {a.jobs} jobs")
    for key in sorted(table, key=lambda k: (k[0] == "all", k[0], k[1])):
        k, n = table[key]
        lo, hi = wilson(k, n)
        print(f"{key[0]:16s} {key[1]:7s} {k:5d} / {n:5d}  {100 * k / n:6.2f}%  [{100 * lo:.2f}, {100 * hi:.2f}]")
    if a.misses:
        with open(a.misses, "w", encoding="utf-8") as f:
            for pos, move in misses:
                f.write("\t".join([pos[0], pos[1], pos[2], pos[3], " ".join(sorted(pos[4])), move]) + "\n")


if __name__ == "__main__":
    main()
