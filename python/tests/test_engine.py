"""The engine in process against the protocol executable, limits, options, errors and threads."""
import random
import threading
import time

import pytest

import libbaghchal
from libbaghchal import Board, BusyError, Engine, EngineError, IllegalMoveError, Move
from libbaghchal.engine import Limit, PlayResult, Score, parse_info, popen

from conftest import movement_positions, random_game


@pytest.fixture(scope="module")
def engine():
    with Engine(tablebase_path="", hash_mb=64) as e:
        yield e


def sample_boards(seed: int):
    rng = random.Random(seed)
    boards = [Board(), random_game(rng, 5), random_game(rng, 25)]
    boards += movement_positions(rng, 3, "forbid") + movement_positions(rng, 2, "draw")
    return boards


def test_fixed_depth_searches_match_the_executable(engine, protocol):
    for board in sample_boards(1):
        engine.clear()
        protocol.new_game()
        mine = engine.play(board, depth=7)
        theirs = protocol.play(board, Limit(depth=7))
        assert (mine.move, mine.ponder) == (theirs.move, theirs.ponder), board.obx()
        for key in ("depth", "seldepth", "score", "nodes", "pv"):
            assert mine.info[key] == theirs.info[key], (key, board.obx())


def test_node_limits_and_multipv_match_the_executable(engine, protocol):
    for board in sample_boards(2)[:5]:
        engine.clear()
        protocol.new_game()
        mine = engine.analyse(board, nodes=3000, multipv=3)
        theirs = protocol.analyse(board, Limit(nodes=3000), multipv=3)
        assert [(i["multipv"], i["pv"], i["score"], i["depth"]) for i in mine] == \
               [(i["multipv"], i["pv"], i["score"], i["depth"]) for i in theirs], board.obx()
        assert len(mine) == min(3, len(board.legal_moves))


def test_skill_levels_match_the_executable(protocol):
    with Engine(tablebase_path="", skill_level=3) as weak:
        protocol.configure({"Skill Level": 3})
        for board in sample_boards(3)[:4]:
            weak.clear()
            protocol.new_game()
            assert weak.play(board, depth=5).move == protocol.play(board, Limit(depth=5)).move, board.obx()
        assert weak.options["skill_level"] == 3


def test_results_are_shaped_as_python_chess_shapes_them(engine):
    board = Board()
    board.push("C3")
    result = engine.play(board, depth=6)
    assert isinstance(result, PlayResult) and result.move in board.legal_moves
    assert result.ponder is None or isinstance(result.ponder, Move)
    info = result.info
    assert info["depth"] == 6 and info["pv"][0] == result.move and isinstance(info["score"], Score)
    assert info["nodes"] > 0 and isinstance(info["time"], float)
    single = engine.analyse(board, Limit(depth=4))
    assert isinstance(single, dict) and single["multipv"] == 1
    lines = engine.analyse(board, depth=4, multipv=4)
    assert [i["multipv"] for i in lines] == [1, 2, 3, 4]
    assert len({i["pv"][0] for i in lines}) == 4
    scores = [i["score"].cp for i in lines]
    assert scores == sorted(scores, reverse=True)


def test_searchmoves_and_limits(engine):
    board = Board()
    only = [Move("A2"), Move("E4")]
    assert engine.play(board, depth=5, searchmoves=only).move in only
    with pytest.raises(IllegalMoveError, match="searchmoves: A1B1 is not legal here"):
        engine.play(board, depth=3, searchmoves=[Move("A1B1")])
    with pytest.raises(ValueError, match="a search needs a limit that ends it"):
        engine.play(board)
    with pytest.raises(ValueError, match="depth must be a positive integer"):
        engine.play(board, depth=0)
    with pytest.raises(ValueError, match="give either a Limit"):
        engine.play(board, Limit(depth=2), depth=3)
    with pytest.raises(ValueError, match="multipv must be"):
        engine.analyse(board, depth=2, multipv=0)
    t = time.monotonic()
    engine.play(board, movetime=150)
    assert 0.1 < time.monotonic() - t < 2.0
    with pytest.raises(TypeError):
        engine.play("not a board", depth=2)


def test_a_finished_game_has_no_move(engine):
    b = Board("TGGGT/GGXGG/GXGXG/GGXGG/TGGGT t @0 c3")
    result = engine.play(b, depth=3)
    assert result.move is None and result.ponder is None


def test_options_are_checked(engine):
    with pytest.raises(ValueError, match="hash_mb must be an integer from 1 to"):
        engine.configure(hash_mb=0)
    with pytest.raises(ValueError, match="skill_level must be an integer from 0 to 20"):
        engine.configure(skill_level=21)
    with pytest.raises(ValueError, match="elo must be an integer from 600 to 2400"):
        engine.configure(elo=5000)
    engine.configure(hash_mb=48)
    assert engine.options["hash_mb"] == 32  # rounded down to a power of two, as the protocol says
    engine.configure(hash_mb=64)
    assert engine.options["tablebase"] is False


def test_the_database_loads_or_says_why(tb_dir, tmp_path):
    with Engine(tablebase_path=tb_dir) as e:
        assert e.options["tablebase"] is True
        board = movement_positions(random.Random(8), 1, "draw")[0]
        result = e.play(board, depth=4)
        assert result.move in board.legal_moves and result.info["tbhits"] > 0
        e.configure(tablebase_path="")
        assert e.options["tablebase"] is False
    with pytest.raises(libbaghchal.TablebaseError, match="^tablebase not loaded: "):
        Engine(tablebase_path=str(tmp_path))


def test_closed_engines_refuse():
    e = Engine(tablebase_path="")
    e.close()
    e.close()
    assert e.closed
    with pytest.raises(EngineError, match="the engine is closed"):
        e.play(Board(), depth=2)
    with pytest.raises(EngineError):
        e.clear()
    e.stop()  # harmless


def test_one_search_at_a_time_and_stop_from_another_thread():
    with Engine(tablebase_path="") as e:
        board = Board()
        done = {}

        def search():
            t = time.monotonic()
            done["result"] = e.play(board, depth=60)
            done["time"] = time.monotonic() - t

        th = threading.Thread(target=search)
        th.start()
        time.sleep(0.2)
        with pytest.raises(BusyError, match="the engine is searching in another thread"):
            e.play(board, depth=2)
        with pytest.raises(BusyError):
            e.close()
        board.push("C3")  # the engine searches its own copy: the board is free
        e.stop()
        th.join(10)
        assert not th.is_alive() and done["result"].move is not None and done["time"] < 5


def test_engines_in_threads_search_at_once():
    boards = sample_boards(4)[:4]
    with Engine(tablebase_path="") as ref:
        expected = []
        for b in boards:
            ref.clear()
            expected.append(ref.play(b, depth=6).move)
    got = [None] * len(boards)

    def run(i):
        with Engine(tablebase_path="", hash_mb=16) as e:
            got[i] = e.play(boards[i], depth=6).move

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(boards))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert got == expected


def test_the_subprocess_engine(engine_path, tmp_path):
    with pytest.raises(EngineError, match="cannot start"):
        popen(str(tmp_path / "missing"))
    with popen(engine_path, env={"BAGHCHAL_TABLEBASE_PATH": ""}) as e:
        assert e.id["name"].startswith("baghchal") and "Hash" in e.options
        with pytest.raises(EngineError, match="unknown option 'Nonsense'"):
            e.configure({"Nonsense": 1})
        with pytest.raises(EngineError, match="invalid value 'sometimes' for option Repetition"):
            e.configure({"Repetition": "sometimes"})
        result = e.play(Board(), Limit(depth=3))
        assert result.move in Board().legal_moves
        over = Board("TGGGT/GGXGG/GXGXG/GGXGG/TGGGT t @0 c3")
        assert e.play(over, Limit(depth=2)).move is None
    assert e.process.returncode == 0
    with pytest.raises(EngineError):
        e.play(Board(), Limit(depth=2))


def test_parse_info():
    info = parse_info("info depth 6 seldepth 7 multipv 1 score cp -98 lowerbound nodes 11937 nps 852642 "
                      "hashfull 0 time 14 pv C1 A5B4")
    assert info == {"depth": 6, "seldepth": 7, "multipv": 1, "score": Score(cp=-98, bound="lowerbound"),
                    "nodes": 11937, "nps": 852642, "hashfull": 0, "time": 0.014, "pv": [Move("C1"), Move("A5B4")]}
    assert parse_info("info depth 0 score mate -3")["score"] == Score(mate=-3)
    assert str(Score.parse("mate 2 upperbound")) == "mate 2 upperbound"


def test_the_subprocess_engine_dies_or_hangs(engine_path, tmp_path):
    with popen(engine_path, env={"BAGHCHAL_TABLEBASE_PATH": ""}) as e:
        e.process.kill()
        e.process.wait()
        with pytest.raises(EngineError, match="the engine has exited"):
            e.play(Board(), Limit(depth=2))
    hang = tmp_path / "hang.sh"
    hang.write_text("#!/bin/sh\nwhile read line; do case \"$line\" in\n uci) echo uciok;;\n isready) echo readyok;;\n"
                    " esac; done\n")
    hang.chmod(0o755)
    with popen(str(hang), timeout=0.5) as e:
        t = time.monotonic()
        with pytest.raises(EngineError, match="no answer from the engine within 0.5 s"):
            e.play(Board(), Limit(depth=2))
        assert time.monotonic() - t < 3
        assert e.process.poll() is not None  # killed


def test_searches_with_the_database_match_the_executable(tb_dir, protocol):
    protocol.configure({"TablebasePath": tb_dir})
    rng = random.Random(21)
    boards = movement_positions(rng, 3, "draw") + movement_positions(rng, 3, "forbid")
    with Engine(tablebase_path=tb_dir) as e:
        for board in boards:
            e.clear()
            protocol.new_game()
            mine, theirs = e.play(board, depth=6), protocol.play(board, Limit(depth=6))
            assert mine.move == theirs.move, board.obx()
            for key in ("score", "depth", "nodes", "tbhits", "pv"):
                assert mine.info[key] == theirs.info[key], (key, board.obx())
