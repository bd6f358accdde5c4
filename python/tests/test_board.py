"""Boards and moves: notation, legal moves, push/pop, perft, results, repetition, symmetries."""
import copy
import os
import pickle
import random

import pytest

import libbaghchal
from libbaghchal import Board, IllegalMoveError, InvalidPositionError, Move

from conftest import REPO, random_game

# tests/test_game.c: C2C1 E1D1 C1C2 and the tiger's D1E1 recreates the start position.
CYCLE_POS = "TGXXT/GGGGG/GGGGG/GGGGG/TXXGT g @0 c3"
CYCLE = ["C2C1", "E1D1", "C1C2", "D1E1"]


def perft_cases():
    """tests/data/perft.txt: the positions and counts the C suites check."""
    with open(os.path.join(REPO, "tests", "data", "perft.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                obx, counts = line.split(";")
                yield obx.strip(), [int(c) for c in counts.split()]


def test_start_position():
    b = Board()
    assert b.obx() == libbaghchal.STARTING_OBX
    assert b.obx(1) == "T3T/5/5/5/T3T g g20 c0 - 0"
    assert b.turn == libbaghchal.GOATS
    assert (b.goats_in_hand, b.goats_captured, b.goats) == (20, 0, 0)
    assert b.tigers == (1 << 0) | (1 << 4) | (1 << 20) | (1 << 24)
    assert [str(m) for m in b.legal_moves] == [n for n in libbaghchal.SQUARE_NAMES if n not in ("A1", "E1", "A5", "E5")]
    assert b.result() == "*" and b.outcome() is None and not b.is_game_over()
    assert b.move_stack == [] and b.ply == 0
    assert repr(b) == "Board('TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #')"
    assert str(b).splitlines()[1] == "1 T---.---.---.---T"
    assert str(b).splitlines()[2] == "  | \\ | / | \\ | / |"


@pytest.mark.parametrize("depth,leaves", [(1, 21), (2, 252), (3, 5052), (4, 68204), (5, 1304788), (6, 18592000)])
def test_perft_from_the_start(depth, leaves):
    assert Board().perft(depth) == leaves


@pytest.mark.parametrize("obx,counts", list(perft_cases()))
def test_perft_of_the_repository_positions(obx, counts):
    if obx.split()[1] == "t" and obx.split()[3] == "c5":
        # Valid notation no game reaches: refused as the protocol's `position` refuses it.
        with pytest.raises(InvalidPositionError, match="tigers to move with five goats captured cannot occur"):
            Board(obx)
        return
    b = Board(obx)
    assert [b.perft(d) for d in range(1, len(counts) + 1)] == counts
    assert b.perft(0) == 1


def test_perft_refuses_bad_depths():
    with pytest.raises(ValueError, match="perft depth must be from 0 to 64, not 65"):
        Board().perft(65)
    with pytest.raises(ValueError):
        Board().perft(-1)
    with pytest.raises(TypeError):
        Board().perft("3")


def test_push_forms_and_obx_meta():
    b = Board()
    b.push("c3")
    b.push(Move("A1B2"))
    # OBX lists row 1 first; 2.0 numbers the plies as "#t1" (the tigers' first move was the last).
    assert b.obx() == "XXXXT/XTXXX/XXGXX/XXXXX/TXXXT g @19 c0 mA1B2 #t1"
    assert b.obx(1) == "4T/1T3/2G2/5/T3T g g19 c0 mA1B2 2"
    assert b.move_stack == [Move("C3"), Move("A1B2")]
    assert b.peek() == Move("A1B2")
    assert b.ply == 2


def test_obx_round_trip_and_version_1_input():
    b = Board("T3T/5/2G2/5/T3T t g19 c0 mC3 1")
    assert b.obx() == "TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 mC3 #g1"
    assert Board(b.obx()).obx() == b.obx()
    with pytest.raises(ValueError, match="OBX version must be 1 or 2, not 3"):
        b.obx(3)


def test_push_pop_round_trips_random_games():
    rng = random.Random(7)
    for rule in ("forbid", "draw"):
        for _ in range(30):
            b = Board(repetition=rule)
            seen = [b.obx()]
            legal_before = [b.legal_moves]
            while b.legal_moves and len(seen) < 150:
                b.push(rng.choice(b.legal_moves))
                seen.append(b.obx())
                legal_before.append(b.legal_moves)
            while b.move_stack:
                assert b.obx() == seen.pop()
                assert b.legal_moves == legal_before.pop()
                b.pop()
            assert b.obx() == seen.pop() == libbaghchal.STARTING_OBX
            with pytest.raises(IndexError, match="pop from an empty move stack"):
                b.pop()
            with pytest.raises(IndexError):
                b.peek()


def test_illegal_moves_raise_the_engine_message_and_change_nothing():
    b = Board()
    b.push("C3")
    before = b.obx()
    cases = [
        ("C3", "C3 is not a legal move for the tigers in this position"),
        ("A1C3", "A1C3 is not a legal move for the tigers in this position"),
        ("z9", None),
        ("a1e5", None),
        ("", None),
        ("a1\x00b2", "move text contains a NUL character"),
        ("A1B2 C4", None),
    ]
    for text, message in cases:
        with pytest.raises(IllegalMoveError) as info:
            b.push(text)
        if message:
            assert str(info.value) == message
        assert b.obx() == before and len(b.move_stack) == 1
    with pytest.raises(TypeError, match="push\\(\\) takes a Move or move text, not int"):
        b.push(12)
    assert isinstance(IllegalMoveError("x"), ValueError)
    assert isinstance(IllegalMoveError("x"), libbaghchal.BaghchalError)


def test_bad_obx_raises_with_the_engine_message():
    cases = {
        "": "invalid OBX: ",
        "TXXXT/XXXXX/XXXXX/XXXXX/TXXXX g @20 c0": "invalid OBX: ",
        "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT x @20 c0": "invalid OBX: ",
        "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @21 c0": "invalid OBX: ",
        "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0\x00": "invalid OBX: the text contains a NUL character",
        "TXGTG/XXGXG/GGTXG/GGGGX/GGGTG t @0 c5": "invalid OBX: tigers to move with five goats captured cannot occur",
    }
    for obx, prefix in cases.items():
        with pytest.raises(InvalidPositionError) as info:
            Board(obx)
        assert str(info.value).startswith(prefix), obx
        assert len(str(info.value)) > len("invalid OBX: ")
    with pytest.raises(ValueError, match="repetition must be 'forbid' or 'draw', not 'never'"):
        Board(repetition="never")
    with pytest.raises(TypeError):
        Board(5)


def test_forbid_refuses_the_repeating_move_and_draw_allows_it():
    b = Board(CYCLE_POS)
    for m in CYCLE[:3]:
        b.push(m)
    assert Move("D1E1") not in b.legal_moves
    assert not b.is_legal(Move("D1E1"))
    with pytest.raises(IllegalMoveError, match="D1E1 recreates an earlier position \\(Repetition forbid\\)"):
        b.push("D1E1")
    with pytest.raises(IllegalMoveError, match="recreates an earlier position"):
        b.parse_move("d1e1")
    b.repetition = "draw"  # from the next move on, as the protocol's option
    assert b.is_legal(Move("D1E1"))
    b.push("D1E1")
    assert b.occurrences() == 2
    for m in CYCLE:
        assert b.result() == "*"
        b.push(m)
    assert b.occurrences() == 3
    assert b.result() == "draw"
    assert b.outcome() == libbaghchal.Outcome(None, "repetition_draw", "draw: the position occurred three times")
    assert b.legal_moves == []
    with pytest.raises(IllegalMoveError, match="the game is over"):
        b.push("C2C1")
    b.pop()
    assert b.result() == "*" and b.occurrences() == 2


def test_every_way_in_gives_the_same_refusal():
    """push, parse_move and parse_pgn_move refuse alike: NUL bytes, a finished game, a repetition."""
    b = Board(CYCLE_POS)
    for m in CYCLE[:3]:
        b.push(m)
    # D1E1 is B1415 and C2C1 is G2313 in the package's notation.
    for parse, text in ((b.push, "D1E1"), (b.parse_move, "D1E1"), (b.parse_pgn_move, "B1415")):
        with pytest.raises(IllegalMoveError, match="^D1E1 recreates an earlier position \\(Repetition forbid\\)$"):
            parse(text)
    for parse in (b.push, b.parse_move, b.parse_pgn_move):
        with pytest.raises(IllegalMoveError, match="^move text contains a NUL character$"):
            parse("D1\x00E1")
    with pytest.raises(libbaghchal.NotationError, match="NUL"):
        Board.from_pgn("1. G33\x00")
    b.repetition = "draw"
    for m in CYCLE[3:] + CYCLE:
        b.push(m)
    assert b.result() == "draw"
    over = "^C2C1: the game is over \\(draw: the position occurred three times\\)$"
    for parse, text in ((b.push, "C2C1"), (b.parse_move, "C2C1"), (b.parse_pgn_move, "G2313")):
        with pytest.raises(IllegalMoveError, match=over):
            parse(text)
    for call in (b.piece_at, libbaghchal.square_name):
        with pytest.raises(ValueError, match="^square 25 is not one of 0..24$"):
            call(25)
        with pytest.raises(ValueError, match="^square -1 is not one of 0..24$"):
            call(-1)
    assert b.piece_at(0) == "T" and libbaghchal.square_name(24) == "E5"


def test_results_by_the_rules():
    b = Board("TGXXT/GGGGG/GGGGG/GGGGG/TXXXT t @0 c4")
    b.push("mA1C1(B1)")
    assert b.goats_captured == 5
    assert b.result() == "tigers"
    assert b.outcome() == libbaghchal.Outcome(libbaghchal.TIGERS, "five_captured", "tigers win: five goats captured")
    assert b.outcome().result() == "tigers"
    trapped = Board("TGGGT/GGXGG/GXGXG/GGXGG/TGGGT t @0 c3")
    assert trapped.result() == "goats" and trapped.outcome().termination == "tigers_trapped"
    assert trapped.legal_moves == [] and trapped.is_game_over()


def test_parse_move_checks_the_position():
    b = Board()
    assert b.parse_move("c3") is Move("C3")
    assert b.parse_move(Move("B2")) == Move("B2")
    with pytest.raises(IllegalMoveError, match="A1B2 is not a legal move for the goats in this position"):
        b.parse_move("A1B2")
    with pytest.raises(TypeError):
        b.parse_move(None)


def test_moves():
    m = Move("a1c3")
    assert (str(m), repr(m), m.kind, m.captured, m.from_square, m.to_square) == ("A1C3", "Move('A1C3')", "capture", 6, 0, 12)
    assert m == Move("mA1C3(B2)") and hash(m) == hash(Move("A1C3")) and m != Move("A1B2")
    assert m.obx() == "mA1C3(B2)" and Move("C3").obx() == "mC3" and Move("nC3") == Move("C3")
    assert Move("C3").kind == "place" and Move("C3").captured is None and Move("A1B1").kind == "step"
    assert Move.from_code(m.code) is m
    assert {Move("C3"), Move("c3"), Move("A1B2")} == {Move("C3"), Move("A1B2")}
    assert (m == "A1C3") is False
    for bad in (0, -1, 5000, Move("C3").code | 31):
        with pytest.raises(ValueError, match="is not the code of a move"):
            Move.from_code(bad)
    for text in ("", "Z9", "a1e5", "b1d2", "a1c3(b1)", "A1C3x"):
        with pytest.raises(IllegalMoveError):
            Move(text)
    assert pickle.loads(pickle.dumps(m)) is m


def test_squares():
    assert libbaghchal.SQUARE_NAMES[0] == "A1" and libbaghchal.SQUARE_NAMES[24] == "E5" and len(libbaghchal.SQUARE_NAMES) == 25
    assert libbaghchal.square_name(12) == "C3" and libbaghchal.parse_square("c3") == 12
    for bad in ("F1", "A6", "", "C33"):
        with pytest.raises(ValueError):
            libbaghchal.parse_square(bad)
    with pytest.raises(ValueError):
        libbaghchal.square_name(25)
    b = Board()
    assert b.piece_at(0) == "T" and b.piece_at(12) is None
    with pytest.raises(ValueError):
        b.piece_at(25)


def test_copies_are_independent():
    b = Board(CYCLE_POS)
    for m in CYCLE[:3]:
        b.push(m)
    c = b.copy()
    c.pop()
    assert len(b.move_stack) == 3 and len(c.move_stack) == 2
    fresh = b.copy(stack=False)
    assert fresh.obx() == b.obx() and fresh.move_stack == []
    assert Move("D1E1") in fresh.legal_moves  # the history is not carried over
    assert copy.copy(b).move_stack == b.move_stack and copy.deepcopy(b).obx() == b.obx()
    assert type(b.copy()) is Board and type(b.root()) is Board
    assert b.root().obx() == Board(CYCLE_POS).obx()
    restored = pickle.loads(pickle.dumps(b))
    assert restored.obx() == b.obx() and restored.move_stack == b.move_stack
    assert Move("D1E1") not in restored.legal_moves


def test_keys_follow_the_position():
    a, b = Board(), Board()
    for m in ("C3", "A1B1", "C2"):
        a.push(m)
    for m in ("C2", "A1B1", "C3"):
        b.push(m)
    assert a.key == b.key and a.obx().split()[:4] == b.obx().split()[:4]
    a.pop()
    assert a.key != b.key


def test_symmetries():
    assert libbaghchal.SYMMETRIES[0] == "identity" and len(libbaghchal.SYMMETRIES) == 8
    rng = random.Random(3)
    for _ in range(20):
        b = random_game(rng, rng.randrange(60))
        images = b.symmetries()
        assert images[0].obx() == b.obx() and images[0].move_stack == b.move_stack
        for s, img in enumerate(images):
            assert img.move_stack == [m.transform(s) for m in b.move_stack]
            assert sorted(str(m) for m in img.legal_moves) == sorted(str(m.transform(s)) for m in b.legal_moves)
            assert img.perft(2) == b.perft(2)
            assert img.result() == b.result()
            assert bin(img.goats).count("1") == bin(b.goats).count("1")
            assert libbaghchal.transform_squares(s, b.goats) == img.goats
    assert Move("A1B2").transform(1) == Move("E1D2")
    assert Move("A2").transform(4) == Move("B1")
    corners = [Move("A1B1").transform(s) for s in range(8)]
    assert len(set(corners)) == 8
    with pytest.raises(ValueError, match="symmetry 8 is not one of 0..7"):
        Board().transform(8)


def test_transform_keeps_the_repetition_history():
    b = Board(CYCLE_POS)
    for m in CYCLE[:3]:
        b.push(m)
    for s in range(8):
        img = b.transform(s)
        assert Move("D1E1").transform(s) not in img.legal_moves
        assert len(img.legal_moves) == len(b.legal_moves)


def test_random_input_never_breaks_a_board():
    rng = random.Random(11)
    alphabet = "TGXtgx/12345@#c- mABCDEabcde()\x00\xe9"
    b = Board()
    b.push("C3")
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(30)))
        for call in (lambda: Board(text), lambda: b.push(text), lambda: Move(text), lambda: b.parse_move(text)):
            try:
                call()
            except (InvalidPositionError, IllegalMoveError):
                pass
        if len(b.move_stack) > 1:
            b.pop()
    assert isinstance(b.obx(), str)


def test_an_uninitialised_board_is_refused():
    raw = libbaghchal._core.Board.__new__(libbaghchal._core.Board)
    with pytest.raises(RuntimeError, match="not initialised"):
        raw.legal_moves
    with pytest.raises(RuntimeError):
        raw.push("C3")
