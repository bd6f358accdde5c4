#!/usr/bin/env python3
"""Samples training positions for the evaluation and labels them from the whole-game
solution: every position of games played at random and by the engine without the databases
(Skill Levels 0 to 20, a few thousand nodes a move, a random move now and then), both phases
and both sides to move, each distinct position once, with its exact value under the draw rule
(and the distance to the end where the movement database stores it). Same seed, same file.

    python3 tools/distill/sample.py --tb /work/tb --games 3000 --seed 1 --out build/distill/train.tsv

Writes lines `OBX <tab> value for the goats (1 win, 0 draw, -1 loss) <tab> distance or -`.
Needs the Python package libbaghchal (docs/python.md).
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from critical import play_game, whole_solution  # noqa: E402

from libbaghchal import GOATS, Board, Engine  # noqa: E402

RESULT = {"win": 1, "draw": 0, "loss": -1}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tb", required=True)
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--plies", type=int, nargs=2, default=(40, 200), metavar=("LO", "HI"),
                    help="each game is played to a ply drawn from LO to HI - 1 (default 40 200)")
    ap.add_argument("--min-in-hand", type=int, default=0, metavar="N",
                    help="keeps only positions with at least N goats in hand (the placement phase's start)")
    a = ap.parse_args(argv)
    if not 1 <= a.plies[0] < a.plies[1]:
        ap.error("--plies: LO must be at least 1 and below HI")
    tb = whole_solution(a.tb, "sample.py", "labelling")
    rng = random.Random(a.seed)
    seen = set()
    rows = 0
    with Engine(tablebase_path="", hash_mb=16) as engine, open(a.out, "w", encoding="utf-8") as out:
        for game in range(a.games):
            board = play_game(engine, rng, rng.randrange(*a.plies))
            replay = Board(repetition="draw")
            for move in board.move_stack:
                replay.push(move)
                if replay.is_game_over():
                    break
                position = replay.copy(stack=False)
                key = " ".join(position.obx().split()[:4])
                if key in seen or position.goats_in_hand < a.min_in_hand:
                    continue
                seen.add(key)
                v = tb.probe(position)
                goats = RESULT[v.result] if position.turn == GOATS else -RESULT[v.result]
                d = v.distance if v.distance is not None else "-"
                out.write(f"{key}\t{goats}\t{d}\n")
                rows += 1
            if (game + 1) % 200 == 0:
                print(f"{game + 1} games, {rows} positions", file=sys.stderr)


if __name__ == "__main__":
    main()
