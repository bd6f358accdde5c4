"""Shared objects used from several threads at once: every call either works or raises one of
the documented errors, and the objects stay consistent (checked against a replay at the end)."""
import random
import threading

import pytest

import libbaghchal
from libbaghchal import Board, BusyError, Engine, IllegalMoveError, Tablebase, TablebaseError

from conftest import movement_positions

EXPECTED = (BusyError, IllegalMoveError, IndexError, KeyError, TablebaseError)


def test_random_calls_from_threads_on_shared_objects(tb_dir):
    # Movement-phase games, where probes read the board for a while (under forbid, a proof).
    boards = movement_positions(random.Random(12), 2, "forbid") + movement_positions(random.Random(13), 1, "draw")
    tb = Tablebase(tb_dir)
    engine = Engine(tablebase_path="", hash_mb=8)
    failures, counts, busy = [], {"ok": 0, "refused": 0}, []
    lock = threading.Lock()

    def actions(r, board):
        return [
            lambda: board.push(r.choice(board.legal_moves)) if board.legal_moves else board.pop(),
            lambda: board.pop(),
            lambda: board.perft(2),
            lambda: tb.probe(board),
            lambda: tb.rank_moves(board),
            lambda: tb.probe_wdl(board),
            lambda: engine.play(board, depth=2),
            lambda: engine.stop(),
            lambda: board.copy().transform(r.randrange(8)).obx(),
            lambda: board.push("Z9"),
            lambda: Board(board.obx()).legal_moves,
        ]

    def worker(seed):
        r = random.Random(seed)
        for _ in range(250):
            board = r.choice(boards)
            try:
                r.choice(actions(r, board))()
                key = "ok"
            except EXPECTED as e:
                key = "refused"
                if isinstance(e, BusyError):
                    busy.append(str(e))
            except Exception as e:  # noqa: BLE001 - anything else is a failure
                failures.append(repr(e))
                key = "refused"
            with lock:
                counts[key] += 1

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert failures == []
    assert counts["ok"] > 0 and counts["ok"] + counts["refused"] == 1000
    assert busy and set(busy) <= {"the board is in use by a search or probe in another thread",
                                  "the engine is searching in another thread"}
    for board in boards:
        replay = Board(board.root().obx(), repetition=board.repetition)
        for m in board.move_stack:
            replay.push(m)
        assert replay.obx() == board.obx() and replay.legal_moves == board.legal_moves
    tb.close()
    engine.close()
    with pytest.raises(TablebaseError):
        tb.probe(boards[0])
    with pytest.raises(libbaghchal.EngineError):
        engine.play(boards[0], depth=1)
