"""Games in the PGN of the pure-Python ``baghchal`` package (``1. G33 B1122 2. G44``), one game
a line, read and written the way python-chess's ``chess.pgn`` reads and writes its games. The
notation itself is the engine's (engine/compat.h, through :meth:`Board.from_pgn` and
:meth:`Board.pgn`).

>>> import io
>>> games = io.StringIO("1. G33 B1122\\n\\n1. G12 B5142 2. G54\\n")
>>> [len(read_game(games).move_stack) for _ in range(2)], read_game(games)
([2, 3], None)
"""
from __future__ import annotations

from typing import Iterator, Optional, TextIO, Union

from . import Board

__all__ = ["read_game", "read_games", "write_game"]


def read_game(handle: Union[TextIO, str], *, repetition: str = "draw") -> Optional[Board]:
    """The next game of a text handle (or the game of a string), None at the end. Games are
    read under the draw rule by default, as the package plays them (it has no ``forbid``); a
    move that is not legal raises :class:`IllegalMoveError` naming its ply, other text
    :class:`NotationError`."""
    if isinstance(handle, str):
        return Board.from_pgn(handle.strip(), repetition=repetition)
    for line in handle:
        if line.strip():
            return Board.from_pgn(line.strip(), repetition=repetition)
    return None


def read_games(handle: TextIO, *, repetition: str = "draw") -> Iterator[Board]:
    """Every game of a text handle, in order."""
    while True:
        board = read_game(handle, repetition=repetition)
        if board is None:
            return
        yield board


def write_game(board: Board, handle: Optional[TextIO] = None) -> str:
    """The game's PGN (a line); written to ``handle`` too when one is given, followed by a
    newline. :class:`NotationError` for a game that notation cannot hold."""
    text = board.pgn()
    if handle is not None:
        handle.write(text + "\n")
    return text
