"""A benchmark of exact positions for Bagh-Chal agents: positions of every phase with their
value under the draw rule (from the whole-game solution) and the moves that keep it, and a
scorer that reports the share of an agent's moves that keep the value, by phase and side.

    python -m libbaghchal.bench score AGENT [--positions FILE] [--limit N]
    python -m libbaghchal.bench match AGENT --opponent AGENT|perfect:DIR [--games N] [--seed S]
    python -m libbaghchal.bench generate --tb DIR [--forbid] [--count N] [--seed S] [--out FILE]

AGENT is ``random``, ``engine:depth=6`` / ``engine:movetime=50`` / ``engine:nodes=20000``
(the engine in process without the databases; ``,skill=5`` for a level), ``exe:PATH`` with
the same limits after a comma (a protocol executable), or ``module:function`` (a Python
callable that takes a :class:`~libbaghchal.Board` and returns a :class:`~libbaghchal.Move` or move
text). Positions come from games of random moves and of the engine at depth 4, sampled at a
random ply; only positions where some legal move changes the value are kept (a lost position
has none). See docs/python.md, "A benchmark of exact positions".
"""
from __future__ import annotations

import argparse
import importlib
import math
import os
import random
import sys
from typing import Callable, Dict, Iterable, List, NamedTuple, Optional, Tuple

from . import GOATS, Board, Move, Tablebase
from .engine import Engine, Limit, popen

__all__ = ["VERSION", "PHASES", "Position", "MatchResult", "load", "generate", "generate_forbid", "score", "match",
           "phase_of",
           "agent_from_spec", "perfect_player", "wilson", "table"]

VERSION = 1
"""The version of the position set and its format; cite it with the scores."""

PHASES = ["placement-early", "placement-mid", "placement-late", "movement"]
"""Goats in hand 20-14, 13-7, 6-1 and 0."""

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", f"positions-v{VERSION}.txt")
DATA_FORBID = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", f"positions-forbid-v{VERSION}.txt")


class Position(NamedTuple):
    """A benchmark position: its phase, the side to move, OBX, its value for the side to move
    under the rule (``'win'`` or ``'draw'``), the moves that keep it, and the repetition rule
    (``'draw'``, or ``'forbid'`` for the set of positions the prover settles, played as a
    game's start)."""

    phase: str
    side: str
    obx: str
    value: str
    keeping: Tuple[Move, ...]
    rule: str = "draw"


def phase_of(board: Board) -> str:
    """The benchmark's phase of a position (:data:`PHASES`)."""
    h = board.goats_in_hand
    return "movement" if h == 0 else "placement-late" if h <= 6 else "placement-mid" if h <= 13 else "placement-early"


def load(path: Optional[str] = None) -> List[Position]:
    """The positions of a benchmark file (default: the draw-rule set shipped with the package;
    a file whose header says ``# rule: forbid`` holds positions to play under ``forbid``)."""
    out = []
    rule = "draw"
    with open(path or DATA, encoding="utf-8") as f:
        for line in f:
            if line.startswith("# rule: "):
                rule = line[len("# rule: "):].strip()
            if line.startswith("#") or not line.strip():
                continue
            phase, side, obx, value, moves = line.rstrip("\n").split("\t")
            out.append(Position(phase, side, obx, value, tuple(Move(m) for m in moves.split()), rule))
    return out


def generate(tb: Tablebase, count: int, seed: int) -> List[Position]:
    """``count`` positions, as many in each phase and side, from random and engine games."""
    if not tb.has_placement:
        raise ValueError("generating needs the whole-game solution (baghchal-placement.tb beside baghchal.tb)")
    rng = random.Random(seed)
    buckets: Dict[Tuple[str, str], List[Position]] = {(p, s): [] for p in PHASES for s in ("goats", "tigers")}
    per_bucket = max(1, count // len(buckets))
    seen = set()
    with Engine(tablebase_path="", hash_mb=16) as engine:
        while any(len(b) < per_bucket for b in buckets.values()):
            board = Board(repetition="draw")
            by_engine = rng.random() < 0.5
            engine.clear()
            stop = rng.randrange(1, 120)
            while len(board.move_stack) < stop and board.legal_moves:
                if by_engine:
                    move = engine.play(board, depth=4).move
                    if rng.random() < 0.1:  # some variety between engine games
                        move = rng.choice(board.legal_moves)
                else:
                    move = rng.choice(board.legal_moves)
                board.push(move)
            if board.is_game_over():
                continue
            position = board.copy(stack=False)
            key = position.obx().split()[:4]
            bucket = buckets[(phase_of(position), "goats" if position.turn == GOATS else "tigers")]
            if tuple(key) in seen or len(bucket) >= per_bucket:
                continue
            value = tb.probe(position)
            if value.result == "loss":
                continue
            ranked = tb.rank_moves(position)
            keeping = tuple(m for m, v in ranked if v.result == value.result)
            if len(keeping) == len(ranked):
                continue  # no move changes the value: nothing to tell agents apart
            seen.add(tuple(key))
            bucket.append(Position(phase_of(position), "goats" if position.turn == GOATS else "tigers",
                                   " ".join(key), value.result, keeping))
    return [p for b in buckets.values() for p in b]


def generate_forbid(tb: Tablebase, count: int, seed: int, max_games: int = 20000) -> List[Position]:
    """Up to ``count`` movement-phase positions that the draw rule calls drawn and that the
    forbid prover settles as a win for the side to move when the position starts a game under
    ``forbid`` (as ``tbprobe`` settles them), with the moves that keep the win, from random and
    engine games; at most ``max_games`` games are tried."""
    rng = random.Random(seed)
    out: List[Position] = []
    seen = set()
    with Engine(tablebase_path="", hash_mb=16) as engine:
        for _ in range(max_games):
            if len(out) >= count:
                break
            board = Board(repetition="draw")
            by_engine = rng.random() < 0.5
            stop = rng.randrange(40, 140)
            while len(board.move_stack) < stop and board.legal_moves:
                move = engine.play(board, depth=3).move if by_engine and rng.random() < 0.9 else \
                    rng.choice(board.legal_moves)
                board.push(move)
            if board.is_game_over() or board.goats_in_hand:
                continue
            start = board.copy(stack=False)
            key = tuple(start.obx().split()[:4])
            if key in seen or tb.probe(start).result != "draw":
                continue
            start.repetition = "forbid"
            value = tb.probe(start)
            if value.result != "win":
                continue
            ranked = tb.rank_moves(start)
            keeping = tuple(m for m, v in ranked if v.result == "win")
            if not keeping or len(keeping) == len(ranked):
                continue
            seen.add(key)
            out.append(Position("movement", "goats" if start.turn == GOATS else "tigers", " ".join(key), "win",
                                keeping, "forbid"))
    return out


def write(positions: Iterable[Position], path: str, command: str, rule: str = "draw") -> None:
    """Writes a benchmark file."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# baghchal position benchmark, version {VERSION}\n")
        f.write(f"# made by: {command}\n")
        if rule != "draw":
            f.write(f"# rule: {rule}\n")
        f.write(f"# phase, side to move, OBX, value for the side to move under the {rule} rule, the moves that keep it\n")
        for p in positions:
            f.write("\t".join([p.phase, p.side, p.obx, p.value, " ".join(str(m) for m in p.keeping)]) + "\n")


Agent = Callable[[Board], object]


def _limit(words: List[str]) -> Tuple[Limit, Optional[int]]:
    """The limit and skill of an AGENT's words (``depth=6``, ``skill=5``), checked now: a limit
    the engine would refuse is refused before any game."""
    kw: Dict[str, int] = {}
    for w in words:
        key, _, value = w.partition("=")
        if key not in ("depth", "nodes", "movetime", "skill"):
            raise ValueError(f"unknown limit {w!r}: depth=, nodes=, movetime= or skill=")
        try:
            kw[key] = int(value)
        except ValueError:
            raise ValueError(f"{key} must be an integer, not {value!r}") from None
    skill = kw.pop("skill", None)
    limit = Limit(**kw)
    limit.check()
    return limit, skill


def agent_from_spec(spec: str) -> Tuple[Agent, Callable[[], None]]:
    """An agent and the function that releases it, from the command line's AGENT."""
    if spec == "random":
        rng = random.Random(0)
        return (lambda board: rng.choice(board.legal_moves)), (lambda: None)
    if spec.startswith("perfect:"):
        tb = Tablebase(spec[len("perfect:"):])
        if not tb.has_placement:
            tb.close()
            raise ValueError("perfect play needs the whole-game solution (baghchal-placement.tb)")
        return perfect_player(tb), tb.close
    if spec.startswith("engine:"):
        limit, skill = _limit(spec[len("engine:"):].split(","))
        engine = Engine(tablebase_path="", hash_mb=16, skill_level=20 if skill is None else skill)

        def play(board: Board) -> object:
            engine.clear()
            return engine.play(board, limit).move
        return play, engine.close
    if spec.startswith("exe:"):
        path, *words = spec[len("exe:"):].split(",")
        limit, skill = _limit(words)
        exe = popen(path, env=dict(os.environ, BAGHCHAL_TABLEBASE_PATH=""))
        if skill is not None:
            exe.configure({"Skill Level": skill})

        def play_exe(board: Board) -> object:
            exe.new_game()
            return exe.play(board, limit).move
        return play_exe, exe.quit
    module, _, name = spec.partition(":")
    if not name:
        raise ValueError(f"unknown agent {spec!r}: random, engine:..., exe:PATH,... or module:function")
    return getattr(importlib.import_module(module), name), (lambda: None)


def perfect_player(tb: Tablebase, seed: int = 0) -> Agent:
    """Perfect play from the whole-game solution, under the draw rule: a move that keeps the
    value (the fastest win, the slowest loss, a draw), chosen at random among the equal best."""
    rng = random.Random(seed)

    def play(board: Board) -> object:
        ranked = tb.rank_moves(board)
        best = [m for m, v in ranked if (v.result, v.distance) == (ranked[0][1].result, ranked[0][1].distance)]
        return rng.choice(best)
    return play


class MatchResult(NamedTuple):
    """A match's games from the agent's side: wins, draws and losses as goats and as tigers,
    the games stopped at the ply limit (counted as draws), and what failed: one line for each
    game a player lost by raising an exception (``'agent: ZeroDivisionError: ...'``)."""

    goats: Tuple[int, int, int]
    tigers: Tuple[int, int, int]
    stopped: int
    failures: Tuple[str, ...] = ()

    def score(self) -> Tuple[float, float, float]:
        """The agent's share of the points (a draw is half) and its 95% Wilson interval,
        ``(share, low, high)``: honest for a few games too (0 of 4 is 0.0%-49.0%, not a point)."""
        w = self.goats[0] + self.tigers[0]
        d = self.goats[1] + self.tigers[1]
        n = w + d + self.goats[2] + self.tigers[2]
        if n == 0:
            return 0.0, 0.0, 1.0
        points = w + d / 2
        lo, hi = wilson(points, n)
        return points / n, lo, hi


def match(agent: Agent, opponent: Agent, games: int, seed: int = 1, opening_plies: int = 2,
          max_plies: int = 600) -> MatchResult:
    """Games of the agent against the opponent under the draw rule, in pairs: each random
    opening of ``opening_plies`` plies is played once with the agent as goats and once as
    tigers. A game still going after ``max_plies`` plies counts as a draw."""
    rng = random.Random(seed)
    tally = {GOATS: [0, 0, 0], 1: [0, 0, 0]}
    stopped = 0
    failures: List[str] = []
    for g in range(games):
        if g % 2 == 0:
            opening = Board(repetition="draw")
            for _ in range(opening_plies):
                opening.push(rng.choice(opening.legal_moves))
        board = opening.copy()
        agent_side = GOATS if g % 2 == 0 else 1
        while not board.is_game_over() and len(board.move_stack) < max_plies:
            player = agent if board.turn == agent_side else opponent
            try:
                choice = player(board.copy())
            except Exception as e:  # noqa: BLE001 - a player that fails loses the game, and it is told
                failures.append(f"{'agent' if player is agent else 'opponent'}: {type(e).__name__}: {e}")
                tally[agent_side][2 if player is agent else 0] += 1
                break
            try:
                move = board.parse_move(choice if isinstance(choice, (Move, str)) else str(choice))
            except Exception:  # noqa: BLE001 - an illegal move loses the game
                tally[agent_side][2 if player is agent else 0] += 1
                break
            board.push(move)
        else:
            outcome = board.outcome()
            if outcome is None:
                stopped += 1
                tally[agent_side][1] += 1
            else:
                tally[agent_side][1 if outcome.winner is None else 0 if outcome.winner == agent_side else 2] += 1
    return MatchResult(tuple(tally[GOATS]), tuple(tally[1]), stopped, tuple(failures))


def wilson(kept: float, n: int) -> Tuple[float, float]:
    """The 95% Wilson interval of a share (``kept`` of ``n``; half points allowed)."""
    if n == 0:
        return 0.0, 0.0
    z, p = 1.96, kept / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def score(agent: Agent, positions: List[Position],
          failures: Optional[List[str]] = None) -> Dict[Tuple[str, str], Tuple[int, int]]:
    """(kept, played) by (phase, side), ``('all', 'all')`` included. A move that is not legal
    counts as not keeping the value; so does an agent that raises, and ``failures`` (a list)
    then gets a line saying where and what (``'<obx>: ValueError: ...'``)."""
    counts: Dict[Tuple[str, str], List[int]] = {}
    for p in positions:
        board = Board(p.obx, repetition=p.rule)
        try:
            move = agent(board.copy())
        except Exception as e:  # noqa: BLE001 - an agent's failure does not keep the value, and is told
            kept = False
            if failures is not None:
                failures.append(f"{p.obx}: {type(e).__name__}: {e}")
        else:
            try:
                move = board.parse_move(move if isinstance(move, (Move, str)) else str(move))
                kept = move in p.keeping
            except Exception:  # noqa: BLE001 - an illegal move does not keep the value
                kept = False
        for key in ((p.phase, p.side), (p.phase, "both"), ("all", p.side), ("all", "both")):
            c = counts.setdefault(key, [0, 0])
            c[0] += kept
            c[1] += 1
    return {k: (v[0], v[1]) for k, v in counts.items()}


def table(results: Dict[Tuple[str, str], Tuple[int, int]]) -> str:
    """The scores as a Markdown table: share kept and its 95% interval."""
    rows = ["| phase | goats | tigers | both |", "|---|---|---|---|"]
    for phase in PHASES + ["all"]:
        cells = []
        for side in ("goats", "tigers", "both"):
            kept, n = results.get((phase, side), (0, 0))
            lo, hi = wilson(kept, n)
            cells.append(f"{kept / n:.1%} ({lo:.1%}-{hi:.1%}, n={n})" if n else "-")
        rows.append(f"| {phase} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m libbaghchal.bench", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sc = sub.add_parser("score", help="score an agent")
    sc.add_argument("agent")
    sc.add_argument("--positions", help="a benchmark file (default: the shipped set)")
    sc.add_argument("--forbid", action="store_true", help="the shipped set of positions settled under forbid")
    sc.add_argument("--limit", type=int, help="only the first N positions")
    mt = sub.add_parser("match", help="play an agent against an opponent (another AGENT, or perfect:DIR)")
    mt.add_argument("agent")
    mt.add_argument("--opponent", required=True)
    mt.add_argument("--games", type=int, default=40)
    mt.add_argument("--seed", type=int, default=1)
    gen = sub.add_parser("generate", help="make a position set from the whole-game solution")
    gen.add_argument("--tb", required=True, help="the folder of baghchal.tb and baghchal-placement.tb")
    gen.add_argument("--count", type=int, default=2000)
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--out")
    gen.add_argument("--forbid", action="store_true", help="the positions the forbid prover settles (movement file only)")
    args = ap.parse_args(argv)
    try:
        if args.command == "generate":
            out = args.out or (DATA_FORBID if args.forbid else DATA)
            with Tablebase(args.tb) as tb:
                positions = generate_forbid(tb, args.count, args.seed) if args.forbid else generate(tb, args.count,
                                                                                                   args.seed)
            command = f"python -m libbaghchal.bench generate{' --forbid' if args.forbid else ''} --count {args.count} " \
                      f"--seed {args.seed}"
            write(positions, out, command, "forbid" if args.forbid else "draw")
            print(f"{len(positions)} positions written to {out}")
            return 0
        if args.command == "match":
            agent, release = agent_from_spec(args.agent)
            try:
                opponent, release_opponent = agent_from_spec(args.opponent)
                try:
                    result = match(agent, opponent, args.games, args.seed)
                finally:
                    release_opponent()
            finally:
                release()
            mean, lo, hi = result.score()
            print(f"{args.agent} against {args.opponent}, {args.games} games under the draw rule: "
                  f"{mean:.1%} (95%: {lo:.1%}-{hi:.1%})")
            print(f"as goats +{result.goats[0]} ={result.goats[1]} -{result.goats[2]}, "
                  f"as tigers +{result.tigers[0]} ={result.tigers[1]} -{result.tigers[2]}"
                  + (f", {result.stopped} stopped at the ply limit" if result.stopped else ""))
            if result.failures:
                print(f"libbaghchal.bench: {len(result.failures)} of {args.games} games were lost by a player that "
                      f"failed; the first: {result.failures[0]}", file=sys.stderr)
                return 1
            return 0
        positions = load(args.positions or (DATA_FORBID if args.forbid else None))[: args.limit]
        agent, release = agent_from_spec(args.agent)
        failures: List[str] = []
        try:
            results = score(agent, positions, failures)
        finally:
            release()
        rule = positions[0].rule if positions else "draw"
        print(f"baghchal position benchmark v{VERSION}{' (forbid)' if rule == 'forbid' else ''}, agent {args.agent}: "
              "moves that keep the value")
        print(table(results))
        if failures:
            print(f"libbaghchal.bench: the agent failed on {len(failures)} of {len(positions)} positions (scored as "
                  f"moves that do not keep the value); the first: {failures[0]}", file=sys.stderr)
            return 1
        return 0
    except Exception as e:  # noqa: BLE001 - a one-line reason, not a trace
        print(f"libbaghchal.bench: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
