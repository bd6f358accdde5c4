"""Games in the PGN of the pure-Python ``baghchal`` package (``1. G33 B1122 2. G44``), read and
written the way python-chess's ``chess.pgn`` reads and writes its games: a game may carry
headers (``[Event "..."]`` lines before its moves), which :class:`Game` keeps; its moves are one
line. The notation itself is the engine's (engine/compat.h, through :meth:`Board.from_pgn` and
:meth:`Board.pgn`).

Games are read under the draw rule unless told otherwise, the rule that package plays by (it
has no ``forbid``), as :meth:`Board.from_pgn` reads them: the games it records read as it
played them.

>>> import io
>>> games = io.StringIO('[Event "Club"]\\n[Goats "Asha"]\\n1. G33 B1122\\n\\n1. G12 B5142 2. G54\\n')
>>> game = read_game(games)
>>> game.headers["Goats"], game.move_stack
('Asha', [Move('C3'), Move('A1B2')])
>>> len(read_game(games).move_stack), read_game(games)
(3, None)
>>> print(write_game(game))
[Event "Club"]
[Goats "Asha"]
<BLANKLINE>
1. G33 B1122
"""
from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, TextIO, Union

from . import Board, Move

__all__ = ["Game", "read_game", "read_games", "write_game"]

_HEADER = re.compile(r'^\[([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')


class Game(Board):
    """A game read from PGN: a :class:`~libbaghchal.Board` (its ``move_stack`` the game's moves,
    ``root()`` its start) that keeps the game's ``headers`` (a dict, in the order read), as
    python-chess's ``chess.pgn.Game`` keeps them. ``str(game)`` is its PGN, headers first.

    >>> game = Game.from_pgn("1. G33 B1122")
    >>> game.headers["Result"] = "*"
    >>> game.mainline_moves()
    [Move('C3'), Move('A1B2')]
    >>> str(game)
    '[Result "*"]\\n\\n1. G33 B1122'
    """

    headers: Dict[str, str]

    def __init__(self, obx: Optional[str] = None, *, repetition: str = "draw") -> None:
        super().__init__(obx, repetition=repetition)
        self.headers = {}

    @classmethod
    def from_pgn(cls, pgn: str, *, repetition: str = "draw") -> "Game":  # type: ignore[override]
        """The game of the package's PGN movetext, with no headers yet."""
        game = super().from_pgn(pgn, repetition=repetition)
        game.headers = {}
        return game

    def mainline_moves(self) -> List[Move]:
        """The game's moves, in order (python-chess's name for them)."""
        return self.move_stack

    def board(self) -> Board:
        """The game's final position as a plain :class:`~libbaghchal.Board`, its history
        included (``board().root()`` is the start)."""
        board = Board(self.root().obx(), repetition=self.repetition)
        for move in self.move_stack:
            board.push(move)
        return board

    def __str__(self) -> str:
        return write_game(self)

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (_rebuild_game, (self.pgn(), self.repetition, dict(self.headers)))


def _rebuild_game(pgn: str, repetition: str, headers: Dict[str, str]) -> Game:
    game = Game.from_pgn(pgn, repetition=repetition)
    game.headers = headers
    return game


def _unquote(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def read_game(handle: Union[TextIO, str], *, repetition: str = "draw") -> Optional[Game]:
    """The next game of a text handle (or the game of a string) as a :class:`Game`, None at the
    end. Header lines (``[Name "value"]``) before the moves are kept in ``game.headers``; the
    moves are the next line that is not one. A move that is not legal raises
    :class:`IllegalMoveError` naming its ply, other text :class:`NotationError`."""
    lines: Iterator[str] = iter(handle.splitlines()) if isinstance(handle, str) else iter(handle)
    headers: Dict[str, str] = {}
    for line in lines:
        text = line.strip()
        if not text:
            continue
        match = _HEADER.match(text)
        if match:
            headers[match.group(1)] = _unquote(match.group(2))
            continue
        game = Game.from_pgn(text, repetition=repetition)
        game.headers = headers
        return game
    if headers:  # headers and no moves: a game with none
        game = Game(repetition=repetition)
        game.headers = headers
        return game
    return None


def read_games(handle: TextIO, *, repetition: str = "draw") -> Iterator[Game]:
    """Every game of a text handle, in order."""
    while True:
        game = read_game(handle, repetition=repetition)
        if game is None:
            return
        yield game


def write_game(board: Board, handle: Optional[TextIO] = None) -> str:
    """The game's PGN: its headers (a :class:`Game`'s), a blank line, and its moves as one
    line; written to ``handle`` too when one is given, followed by a blank line.
    :class:`NotationError` for a game that notation cannot hold."""
    headers = getattr(board, "headers", None) or {}
    lines = [f'[{name} "{_quote(str(value))}"]' for name, value in headers.items()]
    text = "\n".join(lines + [""] if lines else []) + ("\n" if lines else "") + board.pgn()
    if handle is not None:
        handle.write(text + "\n\n" if lines else text + "\n")
    return text
