#!/usr/bin/env python3
"""Makes the set of critical positions: positions reached in play where some legal move
changes the exact value under the draw rule (from the whole-game solution), with the moves
that keep it. Games are random play and the engine without the databases at Skill Levels
0 to 20 and a few thousand nodes a move (with a random move now and then); each game gives
at most one position to each phase and side, and the set holds as many positions for each phase
(goats in hand 20-14, 13-7, 6-1 and 0) and side to move. Same seed, same file.

    python3 tools/distill/critical.py --tb /work/tb --count 1200 --seed 1 \
        --out tools/distill/critical.txt

Needs the Python package libbaghchal (docs/python.md). The file is in the format of
``python -m libbaghchal.bench`` (phase, side, OBX, value, the moves that keep it).
"""
import argparse
import random
import sys

from libbaghchal import GOATS, Board, Engine, Tablebase
from libbaghchal.bench import PHASES, Position, phase_of, write

SKILLS = (0, 5, 10, 15, 20)


def play_game(engine, rng, stop):
    """A game of one kind (random, or the engine at one level and node budget) up to ply stop."""
    board = Board(repetition="draw")
    by_engine = rng.random() < 0.75
    skill = rng.choice(SKILLS)
    nodes = rng.choice((1000, 4000, 16000))
    if by_engine:
        engine.configure(skill_level=skill)
        engine.clear()
    while len(board.move_stack) < stop and board.legal_moves:
        if by_engine and rng.random() >= 0.05:
            move = engine.play(board, nodes=nodes).move
        else:
            move = rng.choice(board.legal_moves)
        board.push(move)
    return board


def critical(tb, position):
    """(value, keeping moves) of a position where some move changes the value, else None."""
    value = tb.probe(position)
    if value.result == "loss":
        return None  # every move keeps a loss
    ranked = tb.rank_moves(position)
    keeping = tuple(m for m, v in ranked if v.result == value.result)
    if len(keeping) == len(ranked):
        return None  # no move changes the value
    return value.result, keeping


def generate(tb, count, seed, log=None):
    rng = random.Random(seed)
    buckets = {(p, s): [] for p in PHASES for s in ("goats", "tigers")}
    per_bucket = max(1, count // len(buckets))
    seen = set()
    games = 0
    with Engine(tablebase_path="", hash_mb=16) as engine:
        while any(len(b) < per_bucket for b in buckets.values()):
            games += 1
            # Each game gives at most one position to each bucket, taken at random among its
            # critical positions, so that no game weighs more than the others.
            board = play_game(engine, rng, rng.randrange(20, 160))
            found = {}
            replay = Board(repetition="draw")
            for move in board.move_stack:
                replay.push(move)
                if replay.is_game_over():
                    break
                position = replay.copy(stack=False)
                key = tuple(position.obx().split()[:4])
                side = "goats" if position.turn == GOATS else "tigers"
                b = (phase_of(position), side)
                if key in seen or len(buckets[b]) >= per_bucket:
                    continue
                found.setdefault(b, []).append((key, position))
            for b in sorted(found):
                rng.shuffle(found[b])
                for key, position in found[b]:
                    c = critical(tb, position)
                    if c and key not in seen:
                        seen.add(key)
                        buckets[b].append(Position(b[0], b[1], " ".join(key), c[0], c[1]))
                        break
            if log and games % 20 == 0:
                print(f"{games} games: " + " ".join(f"{len(v)}" for v in buckets.values()), file=log)
    return [p for b in buckets.values() for p in b]


def whole_solution(folder, program, what):
    """The solution in folder, both files; else the program exits saying what needs them."""
    tb = Tablebase(folder)
    if not tb.has_placement:
        sys.exit(f"{program}: {what} needs the whole-game solution (baghchal-placement.tb beside baghchal.tb)")
    return tb


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tb", required=True, help="folder of baghchal.tb and baghchal-placement.tb")
    ap.add_argument("--count", type=int, default=1200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    tb = whole_solution(a.tb, "critical.py", "the set")
    positions = generate(tb, a.count, a.seed, sys.stderr)
    write(positions, a.out,
          f"python3 tools/distill/critical.py --tb DIR --count {a.count} --seed {a.seed} --out {a.out}")


if __name__ == "__main__":
    main()
