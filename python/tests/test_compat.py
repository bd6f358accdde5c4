"""The notation of the pure-Python `baghchal` package: FEN, PGN, move tokens and the 217
actions, checked on the games that package recorded and on games the engine played
(tests/data/compat_*.txt, the files the C suite reads)."""
import os
import random

import pytest

import libbaghchal
from libbaghchal import Board, IllegalMoveError, InvalidPositionError, Move, NotationError

from conftest import REPO, random_game

REASONS = {"captured": "five_captured", "draw": "repetition_draw", "tigers-trapped": "tigers_trapped",
           "goats-stuck": "goats_stuck"}


def package_games():
    """(reason, pgn, [(fen, set of actions)]) for each game of compat_pkg_games.txt."""
    games, game = [], None
    with open(os.path.join(REPO, "tests", "data", "compat_pkg_games.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("game "):
                game = [line[5:], None, []]
            elif line.startswith("pgn "):
                game[1] = line[4:]
            elif line.startswith("pos "):
                fen, _, actions = line[4:].partition(" : ")
                game[2].append((fen, {int(a) for a in actions.split()}))
            elif line == "end":
                games.append(tuple(game))
    return games


def engine_games():
    """(rule, final obx, moves, package pgn, package fen) for each game of compat_engine_games.txt."""
    games = []
    with open(os.path.join(REPO, "tests", "data", "compat_engine_games.txt"), encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if not l.startswith("#") and l.strip()]
    for i, line in enumerate(lines):
        if line.startswith(" "):
            continue
        rule, _, _, obx, moves = [field.strip() for field in line.split("|")]
        pgn = lines[i + 1].strip()[len("pkg "):]
        fen = lines[i + 2].strip()[len("fen "):]
        games.append((rule, obx, [str(Move(m)) for m in moves.split()], pgn, fen))
    return games


def tokens_of(pgn):
    return [t.rstrip("#") for t in pgn.split() if not t.endswith(".") and t not in ("1-0", "0-1", "1/2-1/2")]


def test_the_package_games_position_by_position():
    games = package_games()
    assert len(games) == 12
    for reason, pgn, positions in games:
        board = Board(repetition="draw")
        tokens = tokens_of(pgn)
        assert len(positions) == len(tokens) + 1
        for i, (fen, actions) in enumerate(positions):
            assert board.fen() == fen, (pgn, i)
            assert Board.from_fen(fen, repetition="draw").obx().split()[:4] == board.obx().split()[:4]
            if i < len(tokens):
                mask = board.action_mask()
                assert {a for a in range(217) if mask[a]} == actions, (pgn, i)
                assert set(board.legal_actions()) == actions
                assert board.package_outcome() is None
                move = board.parse_pgn_move(tokens[i])
                assert board.pgn_move(move) == tokens[i]
                board.push(move)
            else:
                assert actions == set()
        assert board.package_outcome().termination == REASONS[reason]
        assert board.pgn() == pgn
        read = Board.from_pgn(pgn, repetition="draw")
        assert read.move_stack == board.move_stack and read.pgn() == pgn


def test_the_package_games_under_forbid_stop_at_the_first_repetition():
    refused = 0
    for _, pgn, _ in package_games():
        try:
            Board.from_pgn(pgn, repetition="forbid")
        except IllegalMoveError as e:
            refused += 1
            assert str(e).startswith("ply ") and "Repetition forbid" in str(e)
    assert refused > 0


def test_the_engine_games_round_trip():
    games = engine_games()
    assert games
    for rule, obx, moves, pgn, fen in games:
        board = Board(repetition=rule)
        for m in moves:
            board.push(m)
        assert board.obx() == obx
        assert board.pgn() == pgn and board.fen() == fen
        read = Board.from_pgn(pgn, repetition=rule)
        assert [str(m) for m in read.move_stack] == moves


def test_actions_and_moves():
    seen = set()
    for a in range(217):
        m = Move.from_action(a)
        assert m.action == a
        seen.add(m)
    assert len(seen) == 217
    assert [Move.from_action(a) for a in range(25)] == [Move(n) for n in libbaghchal.SQUARE_NAMES]
    for bad in (-1, 217):
        with pytest.raises(ValueError, match="is not one of 0..216"):
            Move.from_action(bad)
    rng = random.Random(6)
    for _ in range(100):
        board = random_game(rng, rng.randrange(80))
        mask = board.action_mask()
        assert len(mask) == 217 and sum(mask) == len(board.legal_moves)
        assert sorted(board.legal_actions()) == [a for a in range(217) if mask[a]]


def test_fen_round_trips_and_errors():
    rng = random.Random(8)
    for _ in range(200):
        board = random_game(rng, rng.randrange(100))
        fen = board.fen()
        again = Board.from_fen(fen)
        assert again.fen() == fen and again.obx().split()[:4] == board.obx().split()[:4]
        assert again.ply == board.ply
    for bad in ("", "B3B/5/5/5/B3B X 0", "B3B/5/5/5/B3 G 0", "B3B/5/5/5/B3B G -1", "BBBBB/5/5/5/B3B G 0"):
        with pytest.raises(InvalidPositionError):
            Board.from_fen(bad)
    with pytest.raises(InvalidPositionError, match="NUL"):
        Board.from_fen("B3B/5/5/5/B3B G 0\x00")
    # A movement-phase position whose count of goat moves is unknown has no FEN.
    unknown = Board("GGGGG/GXXTG/GTXGG/GXTGG/GGTGG g g0 c3 - -")
    with pytest.raises(NotationError):
        unknown.fen()


def test_pgn_errors():
    with pytest.raises(NotationError):
        Board.from_pgn("1. X99")
    with pytest.raises(NotationError, match="^ply 2: expected the tigers' move"):
        Board.from_pgn("1. G33 G44")
    with pytest.raises(IllegalMoveError, match=r"^ply 2 \(1\.\.\. Bx1113\): Bx1113 is not a legal move"):
        Board.from_pgn("1. G33 Bx1113")
    with pytest.raises(NotationError):
        Board("TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0").pgn()  # not from the start
    board = Board()
    with pytest.raises(IllegalMoveError):
        board.parse_pgn_move("B1122")
    with pytest.raises(IllegalMoveError, match="A1B1 is not a legal move here"):
        board.pgn_move(Move("A1B1"))
    assert Board.from_pgn("").move_stack == []


def test_the_pgn_module(tmp_path):
    from libbaghchal import pgn

    path = tmp_path / "games.pgn"
    with open(path, "w", encoding="utf-8") as f:
        for _, text, _ in package_games():
            board = pgn.read_game(text)
            assert pgn.write_game(board, f) == text
    with open(path, encoding="utf-8") as f:
        again = [b.pgn() for b in pgn.read_games(f)]
    assert again == [text for _, text, _ in package_games()]
    with open(path, encoding="utf-8") as f:
        with pytest.raises(IllegalMoveError, match="Repetition forbid"):
            list(pgn.read_games(f, repetition="forbid"))
