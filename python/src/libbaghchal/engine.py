"""Engines: the search in process (:class:`Engine`) and the protocol executable as a subprocess
(:func:`popen`, :class:`SimpleEngine`), with the same results: :class:`PlayResult` and info
dicts holding a :class:`Score` and the line (``pv``) as :class:`~libbaghchal.Move` objects.

>>> import libbaghchal
>>> engine = libbaghchal.Engine(tablebase_path="")
>>> result = engine.play(libbaghchal.Board(), depth=6)
>>> result.move in libbaghchal.Board().legal_moves
True
>>> engine.close()

Scores are from the side to move's point of view, as the protocol prints them: centi-goats
(``cp``) or a forced end in N moves (``mate``).
"""
from __future__ import annotations

import collections
import os
import re
import selectors
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Deque, Dict, List, Mapping, Optional, Sequence, Tuple, Union, overload

from . import _core
from ._core import BusyError, EngineError, Move

__all__ = ["Score", "Limit", "PlayResult", "Info", "Engine", "SimpleEngine", "popen"]

_MAX_LINE = 1 << 20
"""The longest line read from the other program, in bytes."""
_MAX_UNANSWERED_LINES = 5000
_MAX_UNANSWERED_BYTES = 1 << 20
"""How much the other program may write that does not answer a command."""
_INTEGER = re.compile(r"[-+]?[0-9]+")
_INTEGER_KEYS = ("depth", "seldepth", "multipv", "nodes", "nps", "tbhits", "hashfull", "currmovenumber", "cpuload",
                 "sbhits")
_KEYS = frozenset(_INTEGER_KEYS + ("time", "score", "pv", "string"))


def _offending(line: str, why: str) -> EngineError:
    """The error for a line that breaks the protocol, naming it (its start when it is long)."""
    shown = repr(line) if len(line) <= 200 else repr(line[:200]) + "..."
    return EngineError(f"the engine wrote {shown}: {why}")

Info = Dict[str, Any]
"""One line of a search: ``depth``, ``seldepth``, ``multipv``, ``score`` (:class:`Score`),
``nodes``, ``nps``, ``tbhits``, ``hashfull``, ``time`` (seconds) and ``pv`` (a list of moves)."""


@dataclass(frozen=True)
class Score:
    """A search score for the side to move: ``cp`` (centi-goats) or ``mate`` (moves to a forced
    end, negative when losing), and ``bound`` (``'lowerbound'``, ``'upperbound'`` or None for an
    exact score). ``str()`` is the protocol's form.

    >>> str(Score(cp=-35)), str(Score(mate=3)), str(Score(cp=12, bound="lowerbound"))
    ('cp -35', 'mate 3', 'cp 12 lowerbound')
    """

    cp: Optional[int] = None
    mate: Optional[int] = None
    bound: Optional[str] = None

    def is_mate(self) -> bool:
        """Whether the score is a forced end."""
        return self.mate is not None

    def __str__(self) -> str:
        text = f"mate {self.mate}" if self.mate is not None else f"cp {self.cp}"
        return f"{text} {self.bound}" if self.bound else text

    @classmethod
    def parse(cls, text: str) -> "Score":
        """Reads the protocol's form (``'cp 35'``, ``'mate -2 upperbound'``)."""
        words = text.split()
        if len(words) < 2 or words[0] not in ("cp", "mate") or not _INTEGER.fullmatch(words[1]):
            raise ValueError(f"not a score: {text!r}")
        value = int(words[1])
        bound = words[2] if len(words) > 2 and words[2] in ("lowerbound", "upperbound") else None
        return cls(cp=value, bound=bound) if words[0] == "cp" else cls(mate=value, bound=bound)


_MAX_NODES = (1 << 64) - 1
_MAX_MOVETIME = (1 << 63) - 1
_BOUNDS_OF = {"depth": (1, _core.MAX_DEPTH), "nodes": (1, _MAX_NODES), "movetime": (1, _MAX_MOVETIME)}


@dataclass(frozen=True)
class Limit:
    """When a search ends: at ``depth`` plies, after ``nodes`` nodes, or after ``movetime``
    milliseconds (the protocol's units) or ``time`` seconds (python-chess's), whichever comes
    first. At least one is needed; ``time`` and ``movetime`` are one limit, given one way.
    Numbers out of range (``depth`` 1..127, ``nodes`` 1..2**64-1, a time of at least a
    millisecond) are a ValueError, never wrapped or clamped.

    >>> Limit(depth=8)
    Limit(depth=8, nodes=None, movetime=None, time=None)
    >>> Limit(time=0.25).milliseconds()
    250
    """

    depth: Optional[int] = None
    nodes: Optional[int] = None
    movetime: Optional[int] = None
    time: Optional[float] = None

    def milliseconds(self) -> Optional[int]:
        """The time limit in milliseconds (``movetime``, or ``time`` rounded), None without one."""
        if self.time is not None:
            return int(round(self.time * 1000))
        return self.movetime

    def check(self) -> None:
        """ValueError unless a limit is set and every limit is in range."""
        if self.depth is None and self.nodes is None and self.movetime is None and self.time is None:
            raise ValueError("a search needs a limit that ends it: depth, nodes, movetime or time")
        for name in ("depth", "nodes", "movetime"):
            value = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
            lo, hi = _BOUNDS_OF[name]
            if value > hi:
                raise ValueError(f"{name} must be from {lo} to {hi}, not {value}")
        if self.time is not None:
            if self.movetime is not None:
                raise ValueError("give the time limit once: time (seconds) or movetime (milliseconds)")
            if not isinstance(self.time, (int, float)) or isinstance(self.time, bool) or \
                    not 0.001 <= self.time <= _MAX_MOVETIME / 1000:
                raise ValueError(f"time must be a number of seconds from 0.001, not {self.time!r}")


@dataclass(frozen=True)
class PlayResult:
    """The move an engine chose (None when the game is over), the reply it expects (or None),
    and the information of its final line."""

    move: Optional[Move]
    ponder: Optional[Move]
    info: Info


_BOUNDS = {1: "upperbound", 2: "lowerbound"}


def _info(raw: Dict[str, Any]) -> Info:
    info = dict(raw)
    mate = info.pop("mate")
    score = info.pop("score")
    bound = _BOUNDS.get(info.pop("bound"))
    info["score"] = Score(mate=mate, bound=bound) if mate is not None else Score(cp=score, bound=bound)
    info["time"] = info["time"] / 1000.0
    return info


def _limit(limit: Optional[Limit], depth: Optional[int], nodes: Optional[int], movetime: Optional[int],
           time: Optional[float] = None) -> Limit:
    if limit is None:
        limit = Limit(depth=depth, nodes=nodes, movetime=movetime, time=time)
    elif depth is not None or nodes is not None or movetime is not None or time is not None:
        raise ValueError("give either a Limit or depth/nodes/movetime/time, not both")
    limit.check()
    return limit


def _search_args(lim: Limit) -> Tuple[int, int, int]:
    return lim.depth or 0, lim.nodes or 0, lim.milliseconds() or 0


class Engine(_core.Engine):
    """The engine in this process: the same search as the protocol's ``go``, on the calling
    thread without the GIL, so other threads run meanwhile (one search at a time per engine:
    a second one raises :class:`BusyError`; :meth:`stop` ends a search from another thread).

    ``tablebase_path`` is the folder of the databases: None loads the standard folder when it
    holds them (as the protocol does at its first ``isready``), ``""`` loads none.
    ``hash_mb``, ``threads``, ``skill_level`` (0..20; 20 is full strength), ``limit_strength``
    with ``elo`` (600..2400) and ``move_overhead`` are the protocol's options.

    >>> engine = Engine(tablebase_path="")
    >>> board = Board()
    >>> board.push("C3")
    >>> lines = engine.analyse(board, depth=5, multipv=2)
    >>> [line["multipv"] for line in lines]
    [1, 2]
    >>> engine.close()
    """

    def __init__(
        self,
        tablebase_path: Optional[str] = None,
        *,
        hash_mb: int = 64,
        threads: int = 1,
        skill_level: int = 20,
        limit_strength: bool = False,
        elo: int = 2400,
        move_overhead: int = 30,
    ) -> None:
        super().__init__(tablebase_path)
        self._skill = (20, False, 2400)
        self._hash_mb = _core.DEFAULT_HASH_MB
        # The folder loaded: None is the standard folder (when it holds a database), "" none.
        self._tablebase_path: Optional[str] = None if tablebase_path is None else os.fspath(tablebase_path)
        self.configure(hash_mb=hash_mb, threads=threads, skill_level=skill_level, limit_strength=limit_strength,
                       elo=elo, move_overhead=move_overhead)

    def configure(
        self,
        *,
        hash_mb: Optional[int] = None,
        threads: Optional[int] = None,
        skill_level: Optional[int] = None,
        limit_strength: Optional[bool] = None,
        elo: Optional[int] = None,
        move_overhead: Optional[int] = None,
        tablebase_path: Optional[str] = None,
    ) -> None:
        """Changes options (those not given stay). Values out of range are refused with
        ValueError; ``tablebase_path`` opens another folder (``""`` unloads the database). A
        call that fails (a value out of range, a database that does not load) changes nothing.

        >>> engine = Engine(tablebase_path="")
        >>> engine.configure(skill_level=5, hash_mb=16)
        >>> engine.options["hash_mb"], engine.options["skill_level"]
        (16, 5)
        >>> engine.close()
        """
        def check(name: str, value: Optional[int], lo: int, hi: int) -> None:
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi):
                raise ValueError(f"{name} must be an integer from {lo} to {hi}, not {value!r}")

        check("hash_mb", hash_mb, 1, _core.MAX_HASH_MB)
        check("threads", threads, 1, _core.MAX_THREADS)
        check("skill_level", skill_level, 0, _core.SKILL_MAX)
        check("elo", elo, _core.SKILL_MIN_ELO, _core.SKILL_MAX_ELO)
        check("move_overhead", move_overhead, 0, 5000)
        if tablebase_path is not None and not isinstance(tablebase_path, (str, os.PathLike)):
            raise TypeError(f"tablebase_path must be a path, not {type(tablebase_path).__name__}")
        # What can fail (a database that does not load, memory for the table or the threads)
        # comes first, each undone when a later one fails, so that a failed call changes nothing.
        undo: List[Callable[[], None]] = []
        try:
            if tablebase_path is not None:
                before = self._tablebase_path
                self._set_tablebase(tablebase_path)
                self._tablebase_path = os.fspath(tablebase_path)
                undo.append(lambda: (self._set_tablebase(before), setattr(self, "_tablebase_path", before)))
            if hash_mb is not None:
                old_hash = self._hash_mb
                self._set("hash", hash_mb)
                self._hash_mb = hash_mb
                undo.append(lambda: (self._set("hash", old_hash), setattr(self, "_hash_mb", old_hash)))
            if threads is not None:
                self._set("threads", threads)
        except BaseException:
            for step in reversed(undo):
                try:
                    step()
                except Exception:  # noqa: BLE001 - the first error is the one to report
                    pass
            raise
        if move_overhead is not None:
            self._set("overhead", move_overhead)
        if skill_level is not None or limit_strength is not None or elo is not None:
            level, limit, rating = self._skill
            level = level if skill_level is None else skill_level
            limit = limit if limit_strength is None else bool(limit_strength)
            rating = rating if elo is None else elo
            self._set("skill", level, int(limit), rating)
            self._skill = (level, limit, rating)

    @property
    def options(self) -> Dict[str, Any]:
        """The settings in force: ``hash_mb`` (rounded down to a power of two), ``threads``
        (at most the processors available), ``skill_level``, ``limit_strength``, ``elo``,
        ``tablebase`` and ``placement`` (whether the databases are loaded)."""
        info = self._info()
        level, limit, rating = self._skill
        info.update(skill_level=level, limit_strength=limit, elo=rating)
        return info

    def play(
        self,
        board: "Board",
        limit: Optional[Limit] = None,
        *,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        movetime: Optional[int] = None,
        time: Optional[float] = None,
        searchmoves: Optional[Sequence[Move]] = None,
    ) -> PlayResult:
        """Searches the board's game (its history decides repetitions) and returns the move to
        play. ``movetime`` is in milliseconds, ``time`` in seconds. Ctrl-C (KeyboardInterrupt)
        stops a search within milliseconds, as it stops Python code.

        >>> engine = Engine(tablebase_path="")
        >>> engine.play(Board(), depth=4).move is not None
        True
        >>> engine.close()
        """
        lim = _limit(limit, depth, nodes, movetime, time)
        best, ponder, final, _ = self._search(board, *_search_args(lim), 1,
                                              None if searchmoves is None else list(searchmoves))
        return PlayResult(best, ponder, _info(final))

    @overload
    def analyse(self, board: "Board", limit: Optional[Limit] = None, *, multipv: None = None,
                depth: Optional[int] = None, nodes: Optional[int] = None, movetime: Optional[int] = None,
                time: Optional[float] = None, searchmoves: Optional[Sequence[Move]] = None) -> Info: ...

    @overload
    def analyse(self, board: "Board", limit: Optional[Limit] = None, *, multipv: int,
                depth: Optional[int] = None, nodes: Optional[int] = None, movetime: Optional[int] = None,
                time: Optional[float] = None, searchmoves: Optional[Sequence[Move]] = None) -> List[Info]: ...

    def analyse(
        self,
        board: "Board",
        limit: Optional[Limit] = None,
        *,
        multipv: Optional[int] = None,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        movetime: Optional[int] = None,
        time: Optional[float] = None,
        searchmoves: Optional[Sequence[Move]] = None,
    ) -> Union[Info, List[Info]]:
        """Searches and returns the final information: one info dict, or with ``multipv=N`` a
        list of the N best lines (best first; fewer when there are fewer moves), as the
        protocol's last ``info`` lines give them. Ctrl-C stops it as it stops :meth:`play`."""
        lim = _limit(limit, depth, nodes, movetime, time)
        n = 1 if multipv is None else multipv
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= _core.MAX_MULTIPV:
            raise ValueError(f"multipv must be an integer from 1 to {_core.MAX_MULTIPV}, not {multipv!r}")
        best, _, final, lines = self._search(board, *_search_args(lim), n,
                                             None if searchmoves is None else list(searchmoves))
        infos = [_info(line) for line in lines]
        # The best line as the search reported it last (the protocol's info before bestmove).
        if best is not None and infos:
            infos[0] = _info(final)
        if multipv is None:
            return infos[0] if infos else _info(final)
        return infos

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return "Engine(closed)" if self.closed else "Engine()"


class SimpleEngine:
    """The protocol executable (``baghchal``) as a subprocess, driven over pipes the way
    python-chess's ``SimpleEngine`` drives UCI engines. Made by :func:`popen`.

    Each call sends the game as ``position obx <root> moves ...`` with the board's repetition
    rule and waits for the answer; ``timeout`` (seconds) bounds every wait, after which
    :class:`EngineError` is raised and the process is killed. Not for several threads at
    once (:class:`BusyError`).

    What the other program writes is read within bounds, so memory stays small whatever it
    writes and however long it is waited for: a line of more than 1 MiB, or more than 1 MiB or
    5000 lines that do not answer the command (before ``uciok``, ``readyok``, or ``bestmove``
    apart from the search's ``info`` lines, of which only the last of each line is kept) is an
    :class:`EngineError`, and the program is killed. A program that is not an engine fails
    at the ``uci`` handshake with ``not an engine: ...``. A line that breaks the protocol (a
    ``bestmove`` without a legal move, a count or score that is not a number, a move that is not
    one) is an :class:`EngineError` naming the line, raised once the search has ended, so the
    engine stays usable.

    >>> with popen("baghchal") as engine:          # the executable on PATH, or its path
    ...     result = engine.play(Board(), Limit(depth=6))
    >>> result.move in Board().legal_moves, result.info["depth"], type(result.info["score"]).__name__
    (True, 6, 'Score')
    """

    def __init__(self, command: Union[str, Sequence[str]], *, timeout: Optional[float] = 30.0,
                 env: Optional[Mapping[str, str]] = None) -> None:
        args = [command] if isinstance(command, (str, os.PathLike)) else list(command)
        if not args or args[0] == "":
            raise ValueError("an empty command: there is no program to start")
        self.timeout = timeout
        self._lock = threading.Lock()
        self._partial = bytearray()  # the start of a line not ended yet
        self._lines: Deque[bytearray] = collections.deque()  # lines read and not taken yet
        self._handshake = str(args[0])  # the program, until it has answered uci
        self._rule: Optional[str] = None
        self._multipv = 1
        try:
            self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, env=None if env is None else dict(env))
        except OSError as e:
            raise EngineError(f"cannot start {args[0]}: {e.strerror or e}") from None
        assert self.process.stdout is not None
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.process.stdout, selectors.EVENT_READ)
        self.id: Dict[str, str] = {}
        self.options: Dict[str, str] = {}
        try:
            self._send("uci")
            for line in self._read_until(lambda l: l == "uciok", "uciok"):
                if line.startswith("id "):
                    key, _, value = line[3:].partition(" ")
                    self.id[key] = value
                elif line.startswith("option name "):
                    name = line[len("option name "):].split(" type ")[0]
                    self.options[name] = line
            self._handshake = ""
            self._ready()
        except BaseException:
            self._kill()
            raise

    # -- pipes --------------------------------------------------------------------------

    def _send(self, line: str) -> None:
        if "\n" in line or "\r" in line:
            raise ValueError("a command is one line")
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(line.encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineError("the engine has exited") from None

    def _broken(self, what: str) -> EngineError:
        """Kills the program and says what it did (``what`` follows its name)."""
        self._kill()
        if self._handshake:
            return EngineError(f"not an engine: {self._handshake!r} {what}")
        return EngineError(f"the engine {what}")

    def _readline(self, deadline: Optional[float]) -> str:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while not self._lines:
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                self._kill()
                raise EngineError(f"no answer from the engine within {self.timeout} s")
            if not self._selector.select(wait):
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                if self._handshake:
                    raise self._broken("has exited without answering uci")
                raise EngineError("the engine has exited")
            self._partial += chunk
            if b"\n" in chunk:
                *complete, rest = self._partial.split(b"\n")
                self._partial = rest
                self._lines.extend(complete)
            for raw in (*self._lines, self._partial):
                if len(raw) > _MAX_LINE:
                    head = raw[:40].decode("utf-8", "replace")
                    raise self._broken(f"wrote a line of more than {_MAX_LINE} bytes: {head!r}...")
        return self._lines.popleft().decode("utf-8", "replace").rstrip("\r")

    def _unanswered(self, count: int, size: int, first: str, answer: str) -> None:
        """EngineError (and the program killed) once too much output has not answered."""
        if count > _MAX_UNANSWERED_LINES or size > _MAX_UNANSWERED_BYTES:
            head = first[:40] + ("..." if len(first) > 40 else "")
            raise self._broken(f"wrote {count} lines ({size} bytes) without {answer}, the first {head!r}")

    def _read_until(self, last: Callable[[str], bool], answer: str) -> List[str]:
        """The lines up to the one ``last`` accepts (included); EngineError after more than
        the bound of lines or bytes without it."""
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        lines: List[str] = []
        size = 0
        while True:
            line = self._readline(deadline)
            lines.append(line)
            if last(line):
                return lines
            size += len(line) + 1
            self._unanswered(len(lines), size, lines[0], answer)

    def _ready(self) -> List[str]:
        """isready; the lines before readyok (errors among them raise EngineError)."""
        self._send("isready")
        lines = self._read_until(lambda l: l == "readyok", "readyok")[:-1]
        for line in lines:
            if line.startswith("info string error: "):
                raise EngineError(line[len("info string error: "):])
        return lines

    def _kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._selector.close()
        self._lines.clear()
        self._partial = bytearray()

    def _command(self, line: str) -> None:
        """Sends a command that prints nothing when it works, and checks that."""
        self._send(line)
        self._ready()

    # -- the API --------------------------------------------------------------------------

    def configure(self, options: Mapping[str, Union[str, int, bool, None]]) -> None:
        """Sets protocol options (``{"Hash": 16, "Repetition": "draw", "TablebasePath": dir}``);
        EngineError with the engine's message when one is refused."""
        with self._guard():
            for name, value in options.items():
                text = "<empty>" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
                self._command(f"setoption name {name} value {text}")
                if name.lower() == "repetition":
                    self._rule = text
                if name.lower() == "multipv":
                    self._multipv = int(text)

    def new_game(self) -> None:
        """``ucinewgame``: clears the engine's tables so the next search repeats exactly."""
        with self._guard():
            self._command("ucinewgame")

    def _position(self, board: "Board") -> None:
        if board.repetition != self._rule:
            self._command(f"setoption name Repetition value {board.repetition}")
            self._rule = board.repetition
        moves = " ".join(str(m) for m in board.move_stack)
        self._command(f"position obx {board.root().obx()}" + (f" moves {moves}" if moves else ""))

    def _go(self, board: "Board", limit: Limit,
            searchmoves: Optional[Sequence[Move]]) -> Tuple[Optional[Move], Optional[Move], Optional[Info], Dict[int, Info]]:
        """Searches; the best move and the reply expected (from bestmove), the last info line
        with a ``pv`` and the last one of each ``multipv`` (only these are kept, however long
        the search). A line that breaks the protocol is an EngineError once the bestmove has
        come (so that the next command is not answered by this search)."""
        words = ["go"]
        for name, value in (("depth", limit.depth), ("nodes", limit.nodes), ("movetime", limit.milliseconds())):
            if value is not None:
                words += [name, str(value)]
        if searchmoves:
            words += ["searchmoves"] + [str(m) for m in searchmoves]
        self._send(" ".join(words))
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        final: Optional[Info] = None
        last: Dict[int, Info] = {}
        error: Optional[EngineError] = None
        count, size, first = 0, 0, ""
        while True:
            line = self._readline(deadline)
            words = line.split()
            if words[:1] == ["bestmove"]:
                if error is not None:
                    raise error
                move, ponder = _bestmove(board, line, words)
                return move, ponder, final, last
            if line.startswith("info string error: "):
                raise EngineError(line[len("info string error: "):])
            if words[:1] == ["info"] and words[1:2] != ["string"]:
                try:
                    info = parse_info(line)
                    k = info.get("multipv", 1)
                    if not 1 <= k <= self._multipv:
                        raise _offending(line, f"multipv {k} is not one of the {self._multipv} lines asked for")
                except EngineError as e:
                    error = error or e
                    continue
                if "pv" in info:
                    final = last[k] = info
            elif words[:1] != ["info"]:
                count, size, first = count + 1, size + len(line) + 1, first or line
                self._unanswered(count, size, first, "bestmove")

    def _search(self, board: "Board", limit: Limit,
                searchmoves: Optional[Sequence[Move]]) -> Tuple[Optional[Move], Optional[Move], Optional[Info], Dict[int, Info]]:
        """_go, and when it is interrupted (Ctrl-C's KeyboardInterrupt, or any other exception
        while the search runs) the search is stopped and its bestmove read, so that the next
        command is not answered by it; a program that does not answer within two seconds is
        killed."""
        try:
            return self._go(board, limit, searchmoves)
        except EngineError:
            raise
        except BaseException:
            if self.process.poll() is None:
                try:
                    self._send("stop")
                    deadline = time.monotonic() + 2.0
                    while not self._readline(deadline).startswith("bestmove"):
                        pass
                except BaseException:  # noqa: BLE001 - whatever happens, the program is not left half-way
                    self._kill()
            raise

    def _guard(self) -> Any:
        engine = self

        class Guard:
            def __enter__(self) -> None:
                if not engine._lock.acquire(blocking=False):
                    raise BusyError("the engine is in use by another thread")
                if engine.process.poll() is not None:
                    engine._lock.release()
                    raise EngineError("the engine has exited")

            def __exit__(self, *exc: object) -> None:
                engine._lock.release()

        return Guard()

    def play(self, board: "Board", limit: Optional[Limit] = None, *, depth: Optional[int] = None,
             nodes: Optional[int] = None, movetime: Optional[int] = None, time: Optional[float] = None,
             searchmoves: Optional[Sequence[Move]] = None) -> PlayResult:
        """The engine's move for the board's game (``go`` with the limit: a :class:`Limit`, or
        ``depth``, ``nodes``, ``movetime`` or ``time`` as :meth:`Engine.play` takes them)."""
        limit = _limit(limit, depth, nodes, movetime, time)
        with self._guard():
            if self._multipv != 1:
                self._command("setoption name MultiPV value 1")
                self._multipv = 1
            self._position(board)
            move, ponder, final, _ = self._search(board, limit, searchmoves)
        return PlayResult(move, ponder, final or {})

    def analyse(self, board: "Board", limit: Optional[Limit] = None, *, multipv: Optional[int] = None,
                depth: Optional[int] = None, nodes: Optional[int] = None, movetime: Optional[int] = None,
                time: Optional[float] = None, searchmoves: Optional[Sequence[Move]] = None) -> Union[Info, List[Info]]:
        """The final info of a search (a list of the best lines with ``multipv``), as
        :meth:`Engine.analyse` returns it."""
        limit = _limit(limit, depth, nodes, movetime, time)
        n = 1 if multipv is None else multipv
        with self._guard():
            if self._multipv != n:
                self._command(f"setoption name MultiPV value {n}")
                self._multipv = n
            self._position(board)
            _, _, _, last = self._search(board, limit, searchmoves)
        infos = [last[k] for k in sorted(last)]
        if multipv is None:
            return infos[0] if infos else {}
        return infos

    def tbprobe(self, board: "Board") -> List[str]:
        """The lines of the protocol's ``tbprobe`` for the board's game (``Value: ...``,
        ``Moves (N):`` and one line a move)."""
        with self._guard():
            self._position(board)
            self._send("tbprobe")
            self._send("isready")
            lines = self._read_until(lambda l: l == "readyok", "readyok")[:-1]
        for line in lines:
            if line.startswith("info string error: "):
                raise EngineError(line[len("info string error: "):])
        return [l for l in lines if not l.startswith("info string")]

    def quit(self) -> None:
        """Ends the engine (``quit``, then a kill if it does not exit within the timeout)."""
        if self.process.poll() is None:
            try:
                self._send("quit")
                self.process.wait(self.timeout)
            except (EngineError, subprocess.TimeoutExpired):
                pass
        self._kill()

    def __enter__(self) -> "SimpleEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()


def _move(text: str, line: str) -> Move:
    try:
        return Move(text)
    except ValueError:
        raise _offending(line, f"{text!r} is not a move") from None


def _bestmove(board: "Board", line: str, words: List[str]) -> Tuple[Optional[Move], Optional[Move]]:
    """The move and the expected reply of a ``bestmove`` line; the move must be legal."""
    if len(words) < 2:
        raise _offending(line, "bestmove without a move")
    move = None
    if words[1] != "(none)":
        move = _move(words[1], line)
        if move not in board.legal_moves:
            raise _offending(line, f"{move} is not legal in {board.obx()}")
    ponder = None
    if len(words) >= 3 and words[2] == "ponder":
        if len(words) < 4:
            raise _offending(line, "ponder without a move")
        ponder = _move(words[3], line)
    return move, ponder


def parse_info(line: str) -> Info:
    """Reads an ``info`` line of the protocol into an info dict (the keys of :data:`Info`;
    other keys keep their value's word, or its number). A line that breaks the protocol's form
    (a count that is not an integer, a score that is not ``cp N`` or ``mate N``, a move that is
    not one) is an :class:`EngineError` naming it.

    >>> parse_info("info depth 3 score mate 2 pv C3 A1B2")
    {'depth': 3, 'score': Score(cp=None, mate=2, bound=None), 'pv': [Move('C3'), Move('A1B2')]}
    >>> parse_info("info depth three")
    Traceback (most recent call last):
    ...
    libbaghchal.EngineError: the engine wrote 'info depth three': depth 'three' is not an integer
    """
    words = line.split()
    if words[:1] != ["info"]:
        raise _offending(line, "not an info line")
    info: Info = {}
    i = 1
    while i < len(words):
        key = words[i]
        if key == "score":
            end = i + 4 if i + 3 < len(words) and words[i + 3] in ("lowerbound", "upperbound") else i + 3
            text = " ".join(words[i + 1:end])
            try:
                info["score"] = Score.parse(text)
            except ValueError:
                raise _offending(line, f"score {text!r} is not cp N or mate N") from None
            i = end
        elif key == "pv":
            info["pv"] = [_move(w, line) for w in words[i + 1:]]
            break
        elif key == "string":
            info["string"] = " ".join(words[i + 1:])
            break
        elif key == "time" or key in _INTEGER_KEYS:
            if i + 1 == len(words) or not _INTEGER.fullmatch(words[i + 1]):
                value = repr(words[i + 1]) if i + 1 < len(words) else "missing"
                raise _offending(line, f"{key} {value} is not an integer")
            info[key] = int(words[i + 1]) / 1000.0 if key == "time" else int(words[i + 1])
            i += 2
        elif i + 1 < len(words) and words[i + 1] not in _KEYS:
            info[key] = int(words[i + 1]) if _INTEGER.fullmatch(words[i + 1]) else words[i + 1]
            i += 2
        else:
            i += 1
    return info


def popen(command: Union[str, Sequence[str]], *, timeout: Optional[float] = 30.0,
          env: Optional[Mapping[str, str]] = None) -> SimpleEngine:
    """Starts the protocol executable (a path, or a command and its arguments) and returns a
    :class:`SimpleEngine` once it has answered ``uci`` and ``isready``. An empty command (``[]``
    or ``""``) is a ValueError, as python-chess refuses it as a wrong argument before starting
    anything (there with asyncio's TypeError); a program that cannot start, or is not an
    engine, is an :class:`EngineError`.

    >>> popen([])
    Traceback (most recent call last):
    ...
    ValueError: an empty command: there is no program to start
    """
    return SimpleEngine(command, timeout=timeout, env=env)


from . import Board  # noqa: E402  (for the annotations; the package imports this module last)
