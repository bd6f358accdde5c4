"""The benchmark of exact positions: the shipped set is what it says, and the scorer counts."""
import random

import pytest

import libbaghchal
from libbaghchal import Board, Tablebase, bench


@pytest.fixture(scope="module")
def positions():
    return bench.load()


def test_the_shipped_set(positions):
    assert len(positions) == 2000 and bench.VERSION == 1
    counts = {}
    for p in positions:
        board = Board(p.obx, repetition="draw")
        assert bench.phase_of(board) == p.phase
        assert p.side == ("goats" if board.turn == libbaghchal.GOATS else "tigers")
        assert p.value in ("win", "draw")
        legal = set(board.legal_moves)
        assert p.keeping and set(p.keeping) < legal, p.obx
        counts[(p.phase, p.side)] = counts.get((p.phase, p.side), 0) + 1
    assert counts == {(phase, side): 250 for phase in bench.PHASES for side in ("goats", "tigers")}
    assert len({p.obx for p in positions}) == 2000


def test_the_movement_positions_agree_with_the_database(positions, tb_dir):
    with Tablebase(tb_dir) as tb:
        for p in positions:
            if p.phase != "movement":
                continue
            board = Board(p.obx, repetition="draw")
            value = tb.probe(board)
            assert value.result == p.value
            assert {m for m, v in tb.rank_moves(board) if v.result == value.result} == set(p.keeping)


def test_the_scorer_counts(positions):
    sample = positions[::20]
    keep = {Board(p.obx).obx(): set(p.keeping) for p in sample}
    perfect = bench.score(lambda b: next(m for m in b.legal_moves if m in keep[b.obx()]), sample)
    assert perfect[("all", "both")] == (len(sample), len(sample))
    worst = bench.score(lambda b: next(m for m in b.legal_moves if m not in keep[b.obx()]), sample)
    assert worst[("all", "both")] == (0, len(sample))
    broken = bench.score(lambda b: 1 / 0, sample)
    assert broken[("all", "both")] == (0, len(sample))
    text = bench.score(lambda b: str(next(iter(keep[b.obx()]))), sample)
    assert text[("all", "both")] == (len(sample), len(sample))
    assert sum(n for (phase, side), (_, n) in perfect.items() if phase != "all" and side != "both") == len(sample)
    lo, hi = bench.wilson(50, 100)
    assert round(lo, 3) == 0.404 and round(hi, 3) == 0.596
    assert "| movement |" in bench.table(perfect)


def test_the_command_line(capsys, tmp_path):
    assert bench.main(["score", "random", "--limit", "40"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("baghchal position benchmark v1, agent random") and "| all |" in out
    assert bench.main(["score", "nonsense"]) == 1
    assert "unknown agent 'nonsense'" in capsys.readouterr().err
    assert bench.main(["score", "engine:depth=2", "--limit", "16"]) == 0
    assert bench.main(["generate", "--tb", str(tmp_path), "--count", "8", "--out", str(tmp_path / "x")]) == 1
    assert "tablebase not loaded" in capsys.readouterr().err


def test_generating_needs_the_whole_solution(tb_dir):
    with Tablebase(tb_dir) as tb:
        if tb.has_placement:
            pytest.skip("the placement file is present")
        with pytest.raises(ValueError, match="needs the whole-game solution"):
            bench.generate(tb, 8, 1)


def test_matches():
    rnd = random.Random(3)
    result = bench.match(lambda b: rnd.choice(b.legal_moves), lambda b: rnd.choice(b.legal_moves), 10, seed=2)
    assert sum(result.goats) + sum(result.tigers) == 10 and sum(result.goats) == 5
    mean, lo, hi = result.score()
    assert 0 <= lo <= mean <= hi <= 1 and hi > lo
    failing = bench.match(lambda b: 1 / 0, lambda b: b.legal_moves[0], 4)
    assert failing.goats == (0, 0, 2) and failing.tigers == (0, 0, 2)
    assert failing.score()[:2] == (0.0, 0.0) and round(failing.score()[2], 3) == 0.49
    assert len(failing.failures) == 4 and failing.failures[0] == "agent: ZeroDivisionError: division by zero"
    illegal = bench.match(lambda b: b.legal_moves[0], lambda b: "Z9", 2)
    assert illegal.goats == (1, 0, 0) and illegal.tigers == (1, 0, 0)
    short = bench.match(lambda b: b.legal_moves[0], lambda b: b.legal_moves[-1], 2, max_plies=3)
    assert short.stopped + sum(short.goats[::2]) + sum(short.tigers[::2]) == 2
    engine, release = bench.agent_from_spec("engine:depth=3")
    try:
        strong = bench.match(engine, lambda b: rnd.choice(b.legal_moves), 6, seed=4)
    finally:
        release()
    assert strong.score()[0] > 0.7


def test_perfect_play_needs_the_whole_solution(tb_dir, capsys):
    with Tablebase(tb_dir) as tb:
        if tb.has_placement:
            pytest.skip("the placement file is present")
    assert bench.main(["match", "random", "--opponent", f"perfect:{tb_dir}", "--games", "2"]) == 1
    assert "perfect play needs the whole-game solution" in capsys.readouterr().err


def test_the_shipped_forbid_set(tb_dir):
    positions = bench.load(bench.DATA_FORBID)
    assert len(positions) == 284
    assert {(p.phase, p.value, p.rule) for p in positions} == {("movement", "win", "forbid")}
    with Tablebase(tb_dir) as tb:
        for p in positions[::7]:
            board = Board(p.obx, repetition="draw")
            assert tb.probe(board).result == "draw"  # the draw rule calls it drawn
            board.repetition = "forbid"
            assert tb.probe(board).result == "win"  # the prover settles it as a game's start
            assert {m for m, v in tb.rank_moves(board) if v.result == "win"} == set(p.keeping)
            assert set(p.keeping) < set(board.legal_moves)
    keep = {Board(p.obx).obx(): set(p.keeping) for p in positions}
    result = bench.score(lambda b: next(m for m in b.legal_moves if m in keep[b.obx()]), positions)
    assert result[("movement", "both")] == (284, 284)
