"""Pictures of positions as SVG, the way python-chess's ``chess.svg`` draws chess boards: the
board's lines and points, the tigers and goats, the last move, arrows, coordinates, and the
board turned round. The text is an :class:`SvgWrapper`, a ``str`` that notebooks show as the
picture (as they show a :class:`~libbaghchal.Board` itself, through ``Board._repr_svg_``).

>>> from libbaghchal import Board, svg
>>> position = Board()
>>> position.push("C3")
>>> text = svg.board(position, lastmove=position.peek(), arrows=[("A1", "B2")], flipped=True)
>>> text.startswith("<svg") and text.count('class="tiger"') == 4 and text.count('class="goat"') == 1
True
"""
from __future__ import annotations

from typing import Iterable, NamedTuple, Optional, Sequence, Tuple, Union
from xml.sax.saxutils import escape

from . import Board, Move, parse_square

__all__ = ["Arrow", "SvgWrapper", "board", "piece"]

Square = Union[int, str]

MARGIN = 20
STEP = 80
POINT = 5
PIECE = 26
COLORS = {
    "background": "#e8d3a2",
    "lines": "#5b4a2c",
    "coordinates": "#5b4a2c",
    "tiger": "#d9822b",
    "tiger_edge": "#6b3a0c",
    "goat": "#f7f7f2",
    "goat_edge": "#4a4a4a",
    "lastmove": "#cdd26a",
    "arrow": "#15781b",
}


class Arrow(NamedTuple):
    """An arrow from ``tail`` to ``head`` (points: 0..24 or names like ``'B2'``) in ``color``
    (any SVG color; green by default). Tail and head the same point mark that point."""

    tail: Square
    head: Square
    color: str = COLORS["arrow"]


class SvgWrapper(str):
    """SVG text that notebooks show as the picture."""

    def _repr_svg_(self) -> str:
        return str(self)


def _square(value: Square) -> int:
    if isinstance(value, str):
        return parse_square(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 25:
        return value
    raise ValueError(f"not a point: {value!r} (0..24, or a name such as 'C3')")


def _xy(square: int, flipped: bool, margin: int) -> Tuple[float, float]:
    col, row = square % 5, square // 5
    if flipped:
        col, row = 4 - col, 4 - row
    return margin + col * STEP, margin + row * STEP


def piece(kind: str, x: float = 0.0, y: float = 0.0) -> str:
    """One piece (``'T'`` a tiger, ``'G'`` a goat) as an SVG group centred on (x, y)."""
    if kind == "T":
        return (f'<g class="tiger"><circle cx="{x:g}" cy="{y:g}" r="{PIECE}" fill="{COLORS["tiger"]}" '
                f'stroke="{COLORS["tiger_edge"]}" stroke-width="3"/>'
                f'<text x="{x:g}" y="{y + 8:g}" text-anchor="middle" font-family="sans-serif" font-size="24" '
                f'font-weight="bold" fill="{COLORS["tiger_edge"]}">T</text></g>')
    if kind == "G":
        return (f'<g class="goat"><circle cx="{x:g}" cy="{y:g}" r="{PIECE - 6}" fill="{COLORS["goat"]}" '
                f'stroke="{COLORS["goat_edge"]}" stroke-width="3"/></g>')
    raise ValueError(f"not a piece: {kind!r} ('T' or 'G')")


def _arrows(arrows: Iterable[Union[Arrow, Tuple[Square, Square], Move]]) -> Sequence[Arrow]:
    out = []
    for a in arrows:
        if isinstance(a, Move):
            out.append(Arrow(a.from_square, a.to_square))
        elif isinstance(a, Arrow):
            out.append(Arrow(_square(a.tail), _square(a.head), a.color))
        else:
            tail, head = a
            out.append(Arrow(_square(tail), _square(head)))
    return out


def board(board: Optional[Board] = None, *, lastmove: Optional[Move] = None,
          arrows: Iterable[Union[Arrow, Tuple[Square, Square], Move]] = (), squares: Iterable[Square] = (),
          coordinates: bool = True, flipped: bool = False, size: Optional[int] = None) -> SvgWrapper:
    """The picture of a position (the empty board when ``board`` is None): row 1 at the top and
    column A at the left as ``str(board)`` prints them, or turned round with ``flipped``.
    ``lastmove`` marks its points, ``arrows`` are :class:`Arrow` objects, (tail, head) pairs or
    moves, ``squares`` marks points, ``coordinates`` names the columns and rows, ``size`` is the
    width and height in pixels (the picture scales)."""
    margin = MARGIN + (20 if coordinates else 0)
    side = 2 * margin + 4 * STEP
    px = f' width="{size}" height="{size}"' if size else ""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 {side} {side}"{px}>',
             '<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" '
             'markerHeight="4" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
             'fill="context-stroke"/></marker></defs>',
             f'<rect x="0" y="0" width="{side}" height="{side}" fill="{COLORS["background"]}"/>']
    xy = lambda sq: _xy(sq, flipped, margin)  # noqa: E731
    if lastmove is not None:
        for sq in {lastmove.from_square, lastmove.to_square}:
            x, y = xy(sq)
            parts.append(f'<circle class="lastmove" cx="{x:g}" cy="{y:g}" r="{PIECE + 8}" '
                         f'fill="{COLORS["lastmove"]}" opacity="0.8"/>')
    for value in squares:
        x, y = xy(_square(value))
        parts.append(f'<circle class="square" cx="{x:g}" cy="{y:g}" r="{PIECE + 8}" fill="none" '
                     f'stroke="{COLORS["arrow"]}" stroke-width="4"/>')
    lines = []
    for sq in range(25):
        col, row = sq % 5, sq // 5
        targets = []
        if col < 4:
            targets.append(sq + 1)
        if row < 4:
            targets.append(sq + 5)
        if (col + row) % 2 == 0:  # the points on the diagonals
            if col < 4 and row < 4:
                targets.append(sq + 6)
            if col > 0 and row < 4:
                targets.append(sq + 4)
        x1, y1 = xy(sq)
        for t in targets:
            x2, y2 = xy(t)
            lines.append(f"M{x1:g} {y1:g}L{x2:g} {y2:g}")
    parts.append(f'<path class="lines" d="{"".join(lines)}" stroke="{COLORS["lines"]}" stroke-width="3" '
                 'fill="none"/>')
    for sq in range(25):
        x, y = xy(sq)
        parts.append(f'<circle cx="{x:g}" cy="{y:g}" r="{POINT}" fill="{COLORS["lines"]}"/>')
    if coordinates:
        for i in range(5):
            col = 4 - i if flipped else i
            row = 4 - i if flipped else i
            x = margin + i * STEP
            parts.append(f'<text class="coordinate" x="{x:g}" y="{margin - 30:g}" text-anchor="middle" '
                         f'font-family="sans-serif" font-size="16" fill="{COLORS["coordinates"]}">'
                         f'{"ABCDE"[col]}</text>')
            parts.append(f'<text class="coordinate" x="{margin - 30:g}" y="{x + 6:g}" text-anchor="middle" '
                         f'font-family="sans-serif" font-size="16" fill="{COLORS["coordinates"]}">{row + 1}</text>')
    if board is not None:
        for sq in range(25):
            kind = board.piece_at(sq)
            if kind:
                parts.append(piece(kind, *xy(sq)))
    for arrow in _arrows(arrows):
        color = escape(arrow.color, {'"': "&quot;"})
        x1, y1 = xy(arrow.tail)
        x2, y2 = xy(arrow.head)
        if arrow.tail == arrow.head:
            parts.append(f'<circle class="arrow" cx="{x1:g}" cy="{y1:g}" r="{PIECE + 4}" fill="none" '
                         f'stroke="{color}" stroke-width="6" opacity="0.8"/>')
            continue
        parts.append(f'<line class="arrow" x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{color}" '
                     f'stroke-width="10" stroke-linecap="round" opacity="0.8" marker-end="url(#arrowhead)"/>')
    parts.append("</svg>")
    return SvgWrapper("".join(parts))
