"""Defects that were reported, each checked as it was seen: a failed call changes nothing,
numbers out of range are refused, the benchmark says what failed, small matches get a real
interval, one rule for reading the package's PGN, and a missing placement file is named."""
import os
import sys
import textwrap

import pytest

from libbaghchal import Board, Engine, Tablebase, TablebaseError, bench, pgn
from libbaghchal.engine import Limit

from test_compat import package_games


def test_a_failed_configure_changes_nothing(tmp_path):
    with Engine(tablebase_path="") as engine:
        before = engine.options
        with pytest.raises(TablebaseError):
            engine.configure(skill_level=3, hash_mb=16, tablebase_path=str(tmp_path / "nonexistent"))
        assert engine.options == before and engine.options["skill_level"] == 20
        with pytest.raises(ValueError):
            engine.configure(skill_level=3, elo=1)
        assert engine.options == before
        engine.configure(skill_level=3, hash_mb=16)
        assert engine.options["skill_level"] == 3 and engine.options["hash_mb"] == 16


def test_numbers_out_of_range_are_refused_not_wrapped():
    with Engine(tablebase_path="") as engine:
        for kw in ({"nodes": 2 ** 64 + 5}, {"nodes": 2 ** 64}, {"depth": 128}, {"depth": 2 ** 32 + 3},
                   {"movetime": 2 ** 63}, {"time": 1e300}, {"time": 0.0001}, {"nodes": -1}):
            with pytest.raises(ValueError):
                engine.play(Board(), **kw)
            with pytest.raises(ValueError):
                Limit(**kw).check()
        with pytest.raises(ValueError, match="give the time limit once"):
            engine.play(Board(), Limit(time=1.0, movetime=100))
        # Below the Python checks, the C call refuses them too rather than wrapping.
        with pytest.raises(OverflowError):
            engine._search(Board(), 0, 2 ** 64 + 5, 0, 1, None)
        assert engine.play(Board(), nodes=2 ** 64 - 1, depth=2).info["depth"] == 2


def test_the_scorer_says_what_failed_and_exits_non_zero(capsys, tmp_path, monkeypatch):
    assert bench.main(["score", "engine:depth=0", "--limit", "4"]) == 1
    err = capsys.readouterr().err
    assert "depth must be a positive integer, not 0" in err
    (tmp_path / "broken_agent.py").write_text(textwrap.dedent("""\
        def play(board):
            raise RuntimeError("no idea what to play")
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    assert bench.main(["score", "broken_agent:play", "--limit", "6"]) == 1
    captured = capsys.readouterr()
    assert "| all |" in captured.out
    assert "the agent failed on 6 of 6 positions" in captured.err and "RuntimeError: no idea what to play" in captured.err
    assert bench.main(["match", "broken_agent:play", "--opponent", "random", "--games", "2"]) == 1
    assert "2 of 2 games were lost by a player that failed" in capsys.readouterr().err
    sys.modules.pop("broken_agent", None)


def test_small_matches_get_a_real_interval(capsys):
    assert bench.main(["match", "random", "--opponent", "engine:depth=2", "--games", "4"]) == 0
    out = capsys.readouterr().out
    assert "+- 0.0%" not in out and "(95%: " in out
    share = bench.MatchResult((0, 0, 2), (0, 0, 2), 0).score()
    assert share[0] == 0.0 and share[1] == 0.0 and 0.45 < share[2] < 0.5
    assert bench.MatchResult((2, 0, 0), (2, 0, 0), 0).score()[1] > 0.5


def test_one_rule_for_the_packages_pgn():
    for _, text, _ in package_games():
        board, game = Board.from_pgn(text), pgn.read_game(text)
        assert board.repetition == game.repetition == "draw"
        assert board.move_stack == game.move_stack and board.pgn() == text
    assert Board.from_fen("B3B/5/5/5/B3B G 0").repetition == "draw"
    assert Board().repetition == "forbid"  # the protocol's rule for games of the engine


def test_a_missing_placement_file_is_named_with_the_command_that_builds_it(tb_dir):
    with Tablebase(tb_dir) as tb:
        if tb.has_placement:
            pytest.skip("the placement file is present")
        for name in ("probe", "rank_moves", "probe_wdl", "probe_distance"):
            with pytest.raises(KeyError) as info:
                getattr(tb, name)(Board())
            message = info.value.args[0]
            assert "baghchal-placement.tb" in message and repr(tb_dir) in message
            assert f"baghchal-tbgen {tb_dir} --placement" in message
        assert tb.get(Board()) is None and tb.get_wdl(Board(), 7) == 7
        assert os.path.isfile(os.path.join(tb_dir, "baghchal.tb"))
