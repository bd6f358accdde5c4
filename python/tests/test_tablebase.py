"""The databases: opening, errors, and every probe against the protocol's tbprobe over pipes."""
import random
import threading
import time

import pytest

import libbaghchal
from libbaghchal import Board, Tablebase, TablebaseError

from conftest import movement_positions, random_game


def tbprobe_lines(tb: Tablebase, board: Board):
    """What the protocol's tbprobe prints, built from the package's answers."""
    try:
        value = tb.probe(board)
    except KeyError:
        return ["Value: not covered (goats in hand)"]
    ranked = tb.rank_moves(board)
    return [f"Value: {value}", f"Moves ({len(ranked)}):"] + [f"{m}: {v}" for m, v in ranked]


@pytest.fixture(scope="module")
def tb(tb_dir):
    with Tablebase(tb_dir) as t:
        yield t


def test_open_errors_carry_the_engine_reason(tmp_path):
    with pytest.raises(TablebaseError, match="^tablebase not loaded: ") as info:
        Tablebase(str(tmp_path))
    assert str(tmp_path) in str(info.value) or "baghchal.tb" in str(info.value)
    (tmp_path / "baghchal.tb").write_bytes(b"not a database" * 100)
    with pytest.raises(TablebaseError, match="^tablebase not loaded: "):
        Tablebase(str(tmp_path))
    with pytest.raises(TablebaseError, match="empty database path"):
        Tablebase("")
    with pytest.raises(ValueError, match="embedded null byte"):  # as open() says it
        Tablebase("a\x00b")
    assert issubclass(TablebaseError, libbaghchal.BaghchalError)


def test_the_standard_folder_is_found_as_the_engine_finds_it(tb_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("BAGHCHAL_TABLEBASE_PATH", tb_dir)
    with Tablebase() as t:
        assert t.path == tb_dir and not t.closed
    monkeypatch.setenv("BAGHCHAL_TABLEBASE_PATH", "")
    with pytest.raises(TablebaseError, match="no standard folder"):
        Tablebase()
    monkeypatch.delenv("BAGHCHAL_TABLEBASE_PATH")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with pytest.raises(TablebaseError, match=f"tablebase not loaded: .*{tmp_path}/baghchal"):
        Tablebase()


def test_closed_handles_refuse_politely(tb_dir):
    t = Tablebase(tb_dir)
    board = movement_positions(random.Random(1), 1, "draw")[0]
    assert t.probe(board).result in ("win", "draw", "loss")
    t.close()
    t.close()
    assert t.closed and repr(t).endswith("(closed)")
    for call in (t.probe, t.rank_moves, t.probe_wdl, lambda b: t.has_placement):
        with pytest.raises(TablebaseError, match="the database is closed"):
            call(board)
    with Tablebase(tb_dir) as t2:
        pass
    assert t2.closed


@pytest.mark.parametrize("repetition", ["draw", "forbid"])
def test_probes_agree_with_the_protocol(tb, tb_dir, protocol, repetition):
    protocol.configure({"TablebasePath": tb_dir})
    rng = random.Random(2024 if repetition == "draw" else 2025)
    boards = movement_positions(rng, 60, repetition)
    # Games that end, and placement positions the movement file does not cover.
    boards += [random_game(rng, 300, repetition) for _ in range(10)]
    boards += [random_game(rng, rng.randrange(1, 30), repetition) for _ in range(5)]
    for board in boards:
        assert tbprobe_lines(tb, board) == protocol.tbprobe(board), board.obx()


def test_values_and_distances(tb):
    rng = random.Random(5)
    for board in movement_positions(rng, 40, "draw"):
        value = tb.probe(board)
        wdl, distance = tb.probe_wdl(board), tb.probe_distance(board)
        assert isinstance(wdl, int) and tb.get_wdl(board) == wdl
        assert value.result == {1: "win", 0: "draw", -1: "loss"}[wdl]
        assert value.distance == distance and not value.proved
        if value.result == "win":
            assert distance % 2 == 1 and str(value) == f"win in {distance}"
        ranked = tb.rank_moves(board)
        assert sorted(str(m) for m, _ in ranked) == sorted(str(m) for m in board.legal_moves)
        best_move, best = ranked[0]
        assert best.result == value.result
        if value.result != "draw":
            assert best.distance == value.distance
            child = board.copy()
            child.push(best_move)
            if not child.is_game_over():
                assert (tb.probe_wdl(child), tb.probe_distance(child)) == (-wdl, distance - 1)


def test_goats_in_hand_are_not_covered_without_the_placement_file(tb):
    if tb.has_placement:
        pytest.skip("the placement file is present")
    board = Board()
    with pytest.raises(KeyError):
        tb.probe(board)
    with pytest.raises(KeyError):
        tb.probe_wdl(board)
    assert tb.get(board) is None


def test_finished_games_need_no_database(tb):
    b = Board("TGXXT/GGGGG/GGGGG/GGGGG/TXXXT t @0 c4")
    b.push("A1C1")
    assert str(tb.probe(b)) == "loss in 0" and tb.rank_moves(b) == []


def test_probes_from_many_threads_and_a_close_in_between(tb_dir):
    rng = random.Random(9)
    boards = movement_positions(rng, 5, "forbid") + movement_positions(rng, 30, "draw")
    t = Tablebase(tb_dir)
    expected = [(str(t.probe(b)), [(str(m), str(v)) for m, v in t.rank_moves(b)]) for b in boards]
    errors, results = [], []

    def worker(seed):
        r = random.Random(seed)
        try:
            for _ in range(100):
                i = r.randrange(len(boards))
                got = (str(t.probe(boards[i])), [(str(m), str(v)) for m, v in t.rank_moves(boards[i])])
                results.append(got == expected[i])
        except TablebaseError as e:
            results.append(str(e) == "the database is closed")
        except Exception as e:  # noqa: BLE001 - any other error fails the test
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for th in threads:
        th.start()
    time.sleep(0.05)
    closed = False
    while not closed:
        try:
            t.close()
            closed = True
        except libbaghchal.BusyError:
            time.sleep(0.0005)  # another thread is probing: refused, never a crash
    for th in threads:
        th.join()
    assert not errors and results and all(results)


def test_a_board_in_a_probe_refuses_changes_from_other_threads(tb_dir):
    """While a forbid probe reads a board without the GIL, pushes from other threads are
    refused with BusyError (or run before or after it): the probe's answer is never mixed."""
    board = movement_positions(random.Random(4), 1, "forbid")[0]
    move = board.legal_moves[0]
    with Tablebase(tb_dir) as t:
        after = board.copy()
        after.push(move)
        allowed = {str(t.probe(board)), str(t.probe(after))}
        stop = threading.Event()
        outcomes = []

        def pusher():
            while not stop.is_set():
                try:
                    board.push(move)
                    board.pop()
                    outcomes.append("ran")
                except libbaghchal.BusyError:
                    outcomes.append("busy")

        th = threading.Thread(target=pusher)
        th.start()
        for _ in range(300):
            assert str(t.probe(board)) in allowed
        stop.set()
        th.join()
        assert outcomes


def test_the_whole_solution_agrees_with_the_protocol(engine_path):
    """With both files (BAGHCHAL_TB_FULL_DIR, not set by run-tests.sh: 818 MB read by each side),
    positions with goats in hand too."""
    import os

    from libbaghchal.engine import popen

    full = os.environ.get("BAGHCHAL_TB_FULL_DIR", "")
    if not os.path.isfile(os.path.join(full, "baghchal-placement.tb")):
        pytest.skip("set BAGHCHAL_TB_FULL_DIR to a folder holding both database files")
    rng = random.Random(77)
    with Tablebase(full) as t, popen(engine_path, env=dict(os.environ, BAGHCHAL_TABLEBASE_PATH=""),
                                     timeout=120) as protocol:
        assert t.has_placement
        protocol.configure({"TablebasePath": full})
        for repetition in ("draw", "forbid"):
            for _ in range(40):
                board = random_game(rng, rng.randrange(0, 45), repetition)
                assert tbprobe_lines(t, board) == protocol.tbprobe(board), board.obx()
        assert str(t.probe(Board(repetition="draw"))) == "draw"
