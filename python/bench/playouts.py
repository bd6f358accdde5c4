#!/usr/bin/env python3
"""Random playouts from the start through the package against the same playouts in C, side by
side in one run, and the vectorised environment's games a second.

Each playout starts a new game and, until the game ends, picks a legal move uniformly and
plays it (under the `forbid` rule unless told otherwise). Three loops are timed in alternating
rounds, the best round of each kept:

  natural  while not board.is_game_over(): board.push(random.choice(list(board.legal_moves)))
  lean     moves = board.legal_moves; stop when empty; push moves[int(rand() * len(moves))]
  C        the same loop in C over the same library (game_legal_moves, game_play), compiled
           into the extension with the same flags: libbaghchal._core._c_playouts

and then the natural loop's own Python with no board behind it: random.choice(list(moves)) on
a plain tuple of 21 moves, between two calls of C functions that do nothing. A ply of the
natural loop costs at least that on top of C's ply, which bounds the share of C's speed that
any package can give the natural loop on this Python ("ceiling").

Times are the process's CPU time (time.process_time), so that other jobs on the machine
weigh less on the ratio. A benchmark, not a test: the figures depend on the machine and its
load.

    python bench/playouts.py [--playouts N] [--rounds R] [--repetition forbid|draw] [--envs N]
"""
import argparse
import random
import time

import libbaghchal
from libbaghchal import _core


def natural(count: int, repetition: str) -> None:
    for _ in range(count):
        board = libbaghchal.Board(repetition=repetition)
        while not board.is_game_over():
            board.push(random.choice(list(board.legal_moves)))


def lean(count: int, repetition: str) -> None:
    rand = random.Random(1).random
    for _ in range(count):
        board = libbaghchal.Board(repetition=repetition)
        while True:
            moves = board.legal_moves
            if not moves:
                break
            board.push(moves[int(rand() * len(moves))])


def plies_per_playout(count: int, repetition: str) -> float:
    plies = 0
    for _ in range(count):
        board = libbaghchal.Board(repetition=repetition)
        while not board.is_game_over():
            board.push(random.choice(list(board.legal_moves)))
            plies += 1
    return plies / count


def floor_ns_per_ply(plies: int) -> float:
    """The natural loop's Python alone: nanoseconds a ply with no board behind it."""
    moves = tuple(libbaghchal.Board().legal_moves)
    over = (0).__bool__       # a C function answering False
    push = set().discard      # a C function doing nothing
    choice = random.choice
    t = time.process_time()
    for _ in range(plies):
        if over():
            break
        push(choice(list(moves)))
    return (time.process_time() - t) / plies * 1e9


def vectorised(envs: int, seconds: float, repetition: str) -> float:
    """Games a second of VectorBaghchalEnv with both sides played at random (actions drawn in
    C by sample_actions, stepped in C)."""
    from libbaghchal.env import VectorBaghchalEnv

    env = VectorBaghchalEnv(envs, repetition=repetition, seed=1, copy=False)
    env.reset()
    best = 0.0
    for _ in range(3):  # the best of three slices
        start_games = env.games_finished
        t = time.process_time()
        while time.process_time() - t < seconds / 3:
            env.step(env.sample_actions())
        best = max(best, (env.games_finished - start_games) / (time.process_time() - t))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--playouts", type=int, default=300, help="playouts per round in Python (C runs 10x as many)")
    ap.add_argument("--rounds", type=int, default=10, help="rounds; the best of each loop is reported")
    ap.add_argument("--repetition", choices=["forbid", "draw"], default="forbid")
    ap.add_argument("--envs", type=int, default=256, help="games in the vectorised environment (0: skip it)")
    args = ap.parse_args()
    random.seed(1)
    best = {"natural": 0.0, "lean": 0.0, "C": 0.0}
    for r in range(args.rounds):
        for name in best:
            n = args.playouts * (10 if name == "C" else 1)
            t = time.process_time()
            if name == "natural":
                natural(n, args.repetition)
            elif name == "lean":
                lean(n, args.repetition)
            else:
                _core._c_playouts(n, r + 1, args.repetition)
            best[name] = max(best[name], n / (time.process_time() - t))
    for name, rate in best.items():
        print(f"{name:8s} {rate:10,.0f} playouts/s  {rate / best['C']:.2f} of C's speed")
    print(f"({args.repetition}, CPU time, best of {args.rounds} rounds)")
    plies = plies_per_playout(args.playouts, args.repetition)
    c_ply = 1e9 / (best["C"] * plies)
    floor = min(floor_ns_per_ply(args.playouts * 50) for _ in range(args.rounds))
    print(f"a ply: C {c_ply:.0f} ns; the natural loop's Python alone at least {floor:.0f} ns "
          f"({plies:.1f} plies a playout)")
    print(f"ceiling of the natural loop on this Python: {c_ply / (c_ply + floor):.2f} of C's speed")
    if args.envs:
        rate = vectorised(args.envs, 3.0, args.repetition)
        print(f"VectorBaghchalEnv({args.envs}), both sides at random: {rate:,.0f} games/s")


if __name__ == "__main__":
    main()
