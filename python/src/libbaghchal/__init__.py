"""Bagh-Chal (Tigers and Goats) for Python, over libbaghchal, the C library of the baghchal engine.

Positions and games (:class:`Board`, :class:`Move`), the perfect-play databases
(:class:`Tablebase`), the engine in process (:class:`Engine`) and the protocol executable as a
subprocess (:mod:`libbaghchal.engine`). Every rule, notation and search is the engine's own C code.

>>> import libbaghchal
>>> board = libbaghchal.Board()
>>> len(board.legal_moves)
21
>>> board.push("C3")
>>> board.turn == libbaghchal.TIGERS
True
>>> board.perft(2)
240
"""
from __future__ import annotations

from typing import List, NamedTuple, Optional, Tuple

from . import _core
from ._core import (
    GOATS,
    TIGERS,
    BaghchalError,
    BusyError,
    EngineError,
    IllegalMoveError,
    InvalidPositionError,
    LegalMoves,
    Move,
    NotationError,
    TablebaseError,
    parse_square,
    square_name,
    transform_squares,
)

__all__ = [
    "GOATS", "TIGERS", "SQUARES", "SQUARE_NAMES", "SYMMETRIES", "STARTING_OBX", "VERSION",
    "Board", "Move", "LegalMoves", "Outcome", "Tablebase", "TablebaseValue", "Engine",
    "BaghchalError", "BusyError", "EngineError", "IllegalMoveError", "InvalidPositionError", "NotationError",
    "TablebaseError",
    "square_name", "parse_square", "transform_squares",
]

VERSION: str = _core.VERSION
"""The engine's version (the library the package was built from)."""

SQUARES = range(25)
"""The 25 points: 0 = A1, 4 = E1, 20 = A5, 24 = E5 (column A..E, row 1..5)."""

SQUARE_NAMES: List[str] = [square_name(sq) for sq in SQUARES]
"""``['A1', 'B1', ..., 'E5']``, indexed by point."""

SYMMETRIES: List[str] = [
    "identity",            # 0
    "mirror_columns",      # 1: A <-> E
    "mirror_rows",         # 2: 1 <-> 5
    "rotate_180",          # 3
    "mirror_diagonal",     # 4: about the A1-E5 diagonal (A2 <-> B1)
    "rotate_90",           # 5: A1 -> E1 -> E5 -> A5
    "rotate_270",          # 6: A1 -> A5 -> E5 -> E1
    "mirror_antidiagonal", # 7: about the A5-E1 diagonal
]
"""Names of the board's 8 symmetries, indexed by the number :meth:`Board.transform` and
:meth:`Move.transform` take. Each keeps the lines of the board (and so the rules)."""

STARTING_OBX = "TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #"
"""The start position in OBX 2.0."""


class Outcome(NamedTuple):
    """How a game ended: the winner (:data:`GOATS`, :data:`TIGERS` or None for a draw), a
    termination name (``'five_captured'``, ``'tigers_trapped'``, ``'goats_stuck'``,
    ``'repetition_blocked'``, ``'repetition_draw'``) and the engine's description."""

    winner: Optional[int]
    termination: str
    description: str

    def result(self) -> str:
        """``'goats'``, ``'tigers'`` or ``'draw'``."""
        return "draw" if self.winner is None else ("goats" if self.winner == GOATS else "tigers")


def _rebuild(root_obx: str, moves: List[str], repetition: str) -> "Board":
    board = Board(root_obx, repetition=repetition)
    for m in moves:
        board.push(m)
    return board


class Board(_core.Board):
    """A game of Bagh-Chal: a start position, the moves played from it, and the repetition rule.

    ``Board()`` is the start position; ``Board(obx)`` starts from an OBX 1.0 or 2.0 position
    (:class:`InvalidPositionError` names the broken rule otherwise). ``repetition`` is
    ``'forbid'`` (the default, as in the protocol: once every goat is placed no move may recreate
    an earlier position) or ``'draw'`` (the third occurrence draws).

    As python-chess's boards: ``legal_moves`` is worked out once per position (a
    :class:`LegalMoves`, which takes ``"A1B1" in board.legal_moves`` as well as moves), two
    boards are equal when their positions are (``board == board.copy()``, whatever the history;
    boards are not hashable), and a notebook shows a board as its picture (:mod:`libbaghchal.svg`).

    >>> board = Board()
    >>> board.push("C3")
    >>> [str(m) for m in board.legal_moves][:4]
    ['A1B1', 'A1A2', 'A1B2', 'E1D1']
    >>> print(board)
      A   B   C   D   E
    1 T---.---.---.---T
      | \\ | / | \\ | / |
    2 .---.---.---.---.
      | / | \\ | / | \\ |
    3 .---.---G---.---.
      | \\ | / | \\ | / |
    4 .---.---.---.---.
      | / | \\ | / | \\ |
    5 T---.---.---.---T
    >>> Board("T3T/5/2G2/5/T3T t g19 c0").obx()
    'TXXXT/XXXXX/XXGXX/XXXXX/TXXXT t @19 c0 - -'
    """

    def __init__(self, obx: Optional[str] = None, *, repetition: str = "forbid") -> None:
        super().__init__(obx, repetition=repetition)

    def outcome(self) -> Optional[Outcome]:
        """The :class:`Outcome` of a finished game, None while it goes on.

        >>> b = Board("TGGGT/GGXGG/GXGXG/GGXGG/TGGGT t @0 c3")
        >>> b.outcome()
        Outcome(winner=0, termination='tigers_trapped', description='goats win: the tigers cannot move')
        """
        raw = self._outcome()
        return None if raw is None else Outcome(*raw)

    def package_outcome(self) -> Optional[Outcome]:
        """The end of the game as the Python ``baghchal`` package's rules see it (None while it
        goes on there): its draw when a board occurs a third time whichever side is to move,
        its tigers trapped whichever side is to move, five captures, goats that cannot move. For
        comparing with agents trained on that package; :meth:`outcome` is this engine's rules."""
        raw = self._package_outcome()
        return None if raw is None else Outcome(*raw)

    def legal_actions(self) -> List[int]:
        """The actions (0..216, the Python ``baghchal`` package's index) of the legal moves.

        >>> Board().legal_actions()[:3]
        [1, 2, 3]
        """
        return [m.action for m in self.legal_moves]

    def _repr_svg_(self) -> str:
        from . import svg

        return svg.board(self, lastmove=self.peek() if self.move_stack else None, size=320)

    def symmetries(self) -> List["Board"]:
        """The game under each of the 8 symmetries, index = the symmetry (0: a copy of this one)."""
        return [self.transform(s) for s in range(8)]

    def __str__(self) -> str:
        rows = ["  A   B   C   D   E"]
        for r in range(5):
            cells = []
            for c in range(5):
                piece = self.piece_at(r * 5 + c)
                cells.append(piece if piece else ".")
            rows.append(f"{r + 1} " + "---".join(cells))
            if r < 4:
                links = [" \\ " if (r + c) % 2 == 0 else " / " for c in range(4)]
                rows.append("  |" + "|".join(links) + "|")
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"Board({self.obx()!r}{', repetition=' + repr(self.repetition) if self.repetition != 'forbid' else ''})"

    def __reduce__(self) -> Tuple[object, Tuple[str, List[str], str]]:
        return (_rebuild, (self.root().obx(), [str(m) for m in self.move_stack], self.repetition))


class TablebaseValue(NamedTuple):
    """A value from the databases, as the protocol's ``tbprobe`` states it.

    ``result`` is ``'win'``, ``'loss'`` or ``'draw'`` (under the draw rule), or ``'win'``,
    ``'loss'`` or ``'open'`` under ``forbid`` (where no game is drawn: ``'open'`` is a position
    whose value under ``forbid`` is not settled). ``distance`` is the number of plies to the end
    under best play, or None where it is not known (the placement phase, a result the prover
    found, an open position). ``proved`` says the forbid prover settled it. ``str()`` gives the
    protocol's text, e.g. ``'win in 13'``, ``'open (draw rule: loss in 8)'``.
    """

    result: str
    distance: Optional[int]
    proved: bool
    text: str

    def __str__(self) -> str:
        return self.text


class Tablebase(_core.Tablebase):
    """The perfect-play databases (``baghchal.tb``, and ``baghchal-placement.tb`` when present).

    ``path`` is the folder holding them; None is the standard folder, found as the engine finds
    it (``$BAGHCHAL_TABLEBASE_PATH``, else ``$XDG_DATA_HOME/baghchal`` or
    ``~/.local/share/baghchal``). Opening checks every checksum and runs without the GIL;
    :class:`TablebaseError` carries the engine's reason. Probes may run from many threads at once.

    >>> board = Board("GGGGG/GXXTG/GTXGG/GXTGG/GGTGG g @0 c3", repetition="draw")
    >>> with Tablebase() as tb:            # the standard folder, where baghchal-tbgen builds them
    ...     print(tb.probe(board))
    ...     ranked = tb.rank_moves(board)
    draw
    >>> [f"{move}: {value}" for move, value in ranked[:2] + ranked[-2:]]
    ['A1B2: draw', 'C1B2: draw', 'B5B4: loss in 18', 'A5B4: loss in 16']
    """

    def __init__(self, path: Optional[str] = None) -> None:
        super().__init__(path)

    def probe(self, board: Board) -> TablebaseValue:
        """The value of the board's position for its side to move, exactly as the protocol's
        ``tbprobe`` gives it for the same game and repetition rule: under ``draw`` the
        database's value; under ``forbid`` what holds for this game's history (the database's
        win or loss when its lines stay open, what a small proof search settles, else
        ``'open'``). A finished game is ``win in 0`` / ``loss in 0`` / ``draw``. KeyError when
        the position is not covered (goats in hand without the placement file; the message names
        the missing file and the command that builds it, ``baghchal-tbgen DIR --placement``)."""
        return TablebaseValue(*self._probe(board))

    def get(self, board: Board, default: Optional[TablebaseValue] = None) -> Optional[TablebaseValue]:
        """:meth:`probe`, or ``default`` when the position is not covered."""
        try:
            return self.probe(board)
        except KeyError:
            return default

    def get_wdl(self, board: Board, default: Optional[int] = None) -> Optional[int]:
        """:meth:`probe_wdl`, or ``default`` when the position is not covered (python-chess's
        ``get_wdl``)."""
        try:
            return self.probe_wdl(board)
        except KeyError:
            return default

    def rank_moves(self, board: Board) -> List[Tuple[Move, TablebaseValue]]:
        """Every legal move with the value it leads to for the side that makes it, best first
        (the order and values of ``tbprobe``'s move list). Empty when the game is over."""
        return [(m, TablebaseValue(*v)) for m, v in self._rank_moves(board)]

    def __enter__(self) -> "Tablebase":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Tablebase({self.path!r}){' (closed)' if self.closed else ''}"


from .engine import Engine  # noqa: E402  (engine.py uses the names above)
