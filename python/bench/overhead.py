#!/usr/bin/env python3
"""What a call into the library costs from Python: the extension (libbaghchal._core) against ctypes
over libbaghchal.so, on the same work: random playouts (legal moves, pick one, play), and a
call that does almost nothing (count_moves of a position against Board.occurrences).

    python bench/overhead.py build/lib/libbaghchal.so
"""
import ctypes
import random
import sys
import time

import libbaghchal


class Position(ctypes.Structure):
    _fields_ = [("tigers", ctypes.c_uint32), ("goats", ctypes.c_uint32), ("side", ctypes.c_uint8),
                ("in_hand", ctypes.c_uint8), ("captured", ctypes.c_uint8), ("key", ctypes.c_uint64)]


def best(fn, rounds=3):
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    lib = ctypes.CDLL(sys.argv[1])
    lib.game_legal_moves.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.game_play.argtypes = [ctypes.c_void_p, ctypes.c_uint16, ctypes.c_char_p, ctypes.c_size_t]
    lib.game_init.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    lib.game_init.restype = ctypes.c_bool
    lib.game_free.argtypes = [ctypes.c_void_p]
    lib.count_moves.argtypes = [ctypes.c_void_p]
    start = Position()
    lib.position_set_start(ctypes.byref(start))
    game = ctypes.create_string_buffer(256)  # a game_t (72 bytes) with room to spare
    moves = (ctypes.c_uint16 * 64)()
    count = 2000

    def ctypes_playouts():
        rand = random.Random(1).random
        for _ in range(count):
            lib.game_init(game, ctypes.byref(start), None, 0)
            while True:
                n = lib.game_legal_moves(game, moves)
                if n == 0:
                    break
                lib.game_play(game, moves[int(rand() * n)], None, 0)
            lib.game_free(game)

    def extension_playouts():
        rand = random.Random(1).random
        for _ in range(count):
            board = libbaghchal.Board()
            while True:
                legal = board.legal_moves
                if not legal:
                    break
                board.push(legal[int(rand() * len(legal))])

    calls = 200000
    pos = ctypes.byref(start)
    board = libbaghchal.Board()

    def ctypes_calls():
        f = lib.count_moves
        for _ in range(calls):
            f(pos)

    def extension_calls():
        f = board.occurrences
        for _ in range(calls):
            f()

    def empty_loop():
        for _ in range(calls):
            pass

    loop = best(empty_loop)
    c_call = (best(ctypes_calls) - loop) / calls * 1e9
    e_call = (best(extension_calls) - loop) / calls * 1e9
    c_play = count / best(ctypes_playouts)
    e_play = count / best(extension_playouts)
    print(f"one call:  ctypes {c_call:.0f} ns, extension {e_call:.0f} ns")
    print(f"playouts:  ctypes {c_play:,.0f}/s (moves as bare codes), extension {e_play:,.0f}/s (Move objects)")


if __name__ == "__main__":
    main()
