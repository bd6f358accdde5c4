"""Learning environments over the engine's rules: a single-agent one (:class:`BaghchalEnv`, a
``gymnasium.Env``), a two-agent one (:class:`BaghchalAECEnv`, a PettingZoo ``AECEnv``) and many
games stepped at once in C (:class:`VectorBaghchalEnv`). numpy is needed; gymnasium and
PettingZoo are not: when they are installed the environments derive from their classes, use
their spaces and pass their checkers (``gymnasium.utils.env_checker.check_env``,
``pettingzoo.test.api_test``); without them they keep the same conventions with small spaces
of their own (``Discrete``, ``Box``, ``Dict`` with ``sample(mask)`` and ``contains``).

Actions are the 217 actions of the pure-Python ``baghchal`` package (:attr:`Move.action`);
the legal ones come as a mask of 217 ``int8`` values, in ``info["action_mask"]`` (gymnasium's
convention: ``env.action_space.sample(info["action_mask"])`` picks a legal one) or in the
observation dict (PettingZoo's). Observations are planes of 5 x 5 points (:data:`PLANES` names
them, row 1 first, column A first): the tigers, the goats, the empty points, the side to move,
the goats in hand / 20 and the goats captured / 5.

An action that is not legal (checkers step with unmasked random actions) does not raise: the
game ends there as a loss for the side that chose it, the board unchanged, and
``info["illegal_action"]`` says so.

>>> env = BaghchalEnv()
>>> obs, info = env.reset(seed=1)
>>> obs.shape, int(info["action_mask"].sum())
((6, 5, 5), 21)
>>> obs, reward, terminated, truncated, info = env.step(12)   # a goat on C3
>>> env.board.move_stack
[Move('C3')]
>>> env.step(0)[1:4], env.board.move_stack                    # A1 is a tiger's: a loss
((-1.0, True, False), [Move('C3')])
"""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from . import GOATS, TIGERS, Board, IllegalMoveError, Move, _core
from .engine import Engine, Limit

__all__ = ["PLANES", "ACTIONS", "BaghchalEnv", "BaghchalAECEnv", "VectorBaghchalEnv", "observation", "ENV_ID"]

PLANES = ["tigers", "goats", "empty", "tigers_to_move", "goats_in_hand", "goats_captured"]
"""The observation's planes, in order."""

ACTIONS = 217
"""The number of actions."""

ENV_ID = "libbaghchal/BaghChal-v0"
"""The id :class:`BaghchalEnv` is registered under with gymnasium, when it is installed
(``gymnasium.make(ENV_ID, agent_side=...)``)."""


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is a Debian package away
        raise ImportError("libbaghchal.env needs numpy (Debian: python3-numpy)") from None
    return numpy


np = _numpy()

try:
    import gymnasium as _gym
    from gymnasium import spaces as _spaces
except ImportError:
    _gym = None
    _spaces = None

try:
    from pettingzoo import AECEnv as _PettingZooAEC
except ImportError:
    _PettingZooAEC = None


# -- spaces, when gymnasium is not there ------------------------------------------------------

class Discrete:
    """``n`` actions 0..n-1, as gymnasium's ``Discrete`` (used when gymnasium is missing)."""

    def __init__(self, n: int, seed: Optional[int] = None) -> None:
        self.n = n
        self.shape: Tuple[int, ...] = ()
        self.dtype = np.dtype(np.int64)
        self.np_random = np.random.default_rng(seed)

    def seed(self, seed: Optional[int] = None) -> None:
        """A new generator for :meth:`sample`."""
        self.np_random = np.random.default_rng(seed)

    def sample(self, mask: Optional[Any] = None) -> int:
        """A random action; with ``mask`` (``n`` int8 values), one where the mask is 1."""
        if mask is None:
            return int(self.np_random.integers(self.n))
        legal = np.flatnonzero(mask)
        return int(legal[self.np_random.integers(len(legal))]) if len(legal) else 0

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is one of the actions."""
        return isinstance(x, (int, np.integer)) and 0 <= int(x) < self.n

    __contains__ = contains

    def __repr__(self) -> str:
        return f"Discrete({self.n})"


class Box:
    """Arrays of ``shape`` and ``dtype`` with values from ``low`` to ``high``, as gymnasium's
    ``Box`` (used when gymnasium is missing)."""

    def __init__(self, low: float, high: float, shape: Tuple[int, ...], dtype: Any) -> None:
        self.low, self.high, self.shape, self.dtype = low, high, tuple(shape), np.dtype(dtype)

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is such an array."""
        return (isinstance(x, np.ndarray) and x.shape == self.shape and x.dtype == self.dtype
                and bool(np.all(x >= self.low)) and bool(np.all(x <= self.high)))

    __contains__ = contains

    def __repr__(self) -> str:
        return f"Box({self.low}, {self.high}, {self.shape}, {self.dtype})"


class Dict(dict):
    """Named spaces, as gymnasium's ``Dict`` (used when gymnasium is missing)."""

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a dict of the same keys whose values each space contains."""
        return isinstance(x, dict) and x.keys() == self.keys() and all(s.contains(x[k]) for k, s in self.items())

    __contains__ = contains  # type: ignore[assignment]


def _action_space() -> Any:
    return _spaces.Discrete(ACTIONS) if _spaces else Discrete(ACTIONS)


def _planes_space() -> Any:
    return (_spaces.Box(0.0, 1.0, shape=(6, 5, 5), dtype=np.float32) if _spaces
            else Box(0.0, 1.0, (6, 5, 5), np.float32))


def _mask_space() -> Any:
    return (_spaces.Box(0, 1, shape=(ACTIONS,), dtype=np.int8) if _spaces
            else Box(0, 1, (ACTIONS,), np.int8))


def observation(board: Board) -> Any:
    """The planes of a board as a float32 array of shape (6, 5, 5) (see :data:`PLANES`)."""
    shifts = np.arange(25, dtype=np.uint32)
    obs = np.empty((6, 25), dtype=np.float32)
    obs[0] = (np.uint32(board.tigers) >> shifts) & 1
    obs[1] = (np.uint32(board.goats) >> shifts) & 1
    obs[2] = 1.0 - obs[0] - obs[1]
    obs[3] = float(board.turn == TIGERS)
    obs[4] = board.goats_in_hand / 20.0
    obs[5] = board.goats_captured / 5.0
    return obs.reshape(6, 5, 5)


def _mask(board: Board) -> Any:
    return np.frombuffer(board.action_mask(), dtype=np.uint8).astype(np.int8)


def _move(action: Any) -> Optional[Move]:
    """The move of an action, None for a number that is no action."""
    try:
        a = int(action)
    except (TypeError, ValueError):
        return None
    return Move.from_action(a) if 0 <= a < ACTIONS else None


Opponent = Union[None, str, Engine]

_EnvBase: Any = _gym.Env if _gym else object


class BaghchalEnv(_EnvBase):  # type: ignore[misc]
    """One game at a time, for one agent (``agent_side`` :data:`GOATS` or :data:`TIGERS`)
    against an ``opponent`` (``'random'``, or an :class:`Engine` searching to ``opponent_limit``,
    its strength set by its skill level), or for both sides in turn (``agent_side=None``). A
    ``gymnasium.Env`` when gymnasium is installed (and registered as :data:`ENV_ID`).

    ``reset(seed=...)`` gives ``(observation, info)`` and seeds ``np_random`` (gymnasium's
    seeding; numpy's ``default_rng`` without gymnasium, the same generator), which the random
    opponent draws from. ``step(action)`` gives ``(observation, reward, terminated, truncated,
    info)``; ``info["action_mask"]`` marks the legal actions of the side to move (all zero once
    the game is over), ``info["board"]`` is the board. The reward is 1 for a win, -1 for a loss
    and 0 otherwise, when the game ends, for the agent (with both sides played, for the side
    that made the action). ``terminated`` is the game's end by the rules and the repetition rule
    (``repetition``), or an illegal action (a loss for the side that chose it, the board
    unchanged, ``info["illegal_action"]`` True); ``truncated`` is ``max_plies`` reached.
    Stepping a finished game raises :class:`IllegalMoveError` (reset first).

    >>> env = BaghchalEnv(agent_side=TIGERS, opponent="random")
    >>> obs, info = env.reset(seed=3)
    >>> env.board.turn == TIGERS and len(env.board.move_stack) == 1
    True
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, *, agent_side: Optional[int] = None, opponent: Opponent = "random",
                 opponent_limit: Optional[Limit] = None, repetition: str = "forbid",
                 max_plies: Optional[int] = None, render_mode: Optional[str] = None,
                 seed: Optional[int] = None) -> None:
        if agent_side not in (None, GOATS, TIGERS):
            raise ValueError("agent_side must be None, GOATS or TIGERS")
        if agent_side is not None and not (opponent == "random" or isinstance(opponent, Engine)):
            raise ValueError("opponent must be 'random' or an Engine")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.agent_side = agent_side
        self.opponent = opponent
        self.opponent_limit = opponent_limit or Limit(depth=4)
        self.repetition = repetition
        self.max_plies = max_plies
        self.render_mode = render_mode
        self.action_space = _action_space()
        self.observation_space = _planes_space()
        self.board = Board(repetition=repetition)  # checks the rule now, not at the first reset
        self._ended = False
        # A seed here seeds the generator until reset(seed=...) seeds it again.
        self._np_random: Optional[Any] = None if seed is None else np.random.default_rng(seed)

    if not _gym:
        @property
        def np_random(self) -> Any:
            """The environment's generator (numpy's), made at the first use when not seeded."""
            if self._np_random is None:
                self._np_random = np.random.default_rng()
            return self._np_random

        @property
        def unwrapped(self) -> "BaghchalEnv":
            """The environment itself (no wrappers here)."""
            return self

    def _opponent_moves(self) -> None:
        while (self.agent_side is not None and self.board.turn != self.agent_side
               and not self.board.is_game_over() and not self._truncated()):
            if isinstance(self.opponent, Engine):
                move = self.opponent.play(self.board, self.opponent_limit).move
            else:
                legal = self.board.legal_moves
                move = legal[int(self.np_random.integers(len(legal)))]
            self.board.push(move)

    def _truncated(self) -> bool:
        return self.max_plies is not None and len(self.board.move_stack) >= self.max_plies

    def _info(self, illegal: bool = False) -> Dict[str, Any]:
        mask = np.zeros(ACTIONS, np.int8) if self._ended else _mask(self.board)
        info: Dict[str, Any] = {"action_mask": mask, "board": self.board}
        if illegal:
            info["illegal_action"] = True
        return info

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict[str, Any]]:
        """A new game from the start (or from ``options["obx"]``); the opponent moves first
        when it is to move. ``seed`` seeds ``np_random``."""
        if _gym:
            super().reset(seed=seed)
        elif seed is not None:
            self._np_random = np.random.default_rng(seed)
        obx = (options or {}).get("obx")
        self.board = Board(obx, repetition=self.repetition)
        self._ended = False
        if isinstance(self.opponent, Engine):
            self.opponent.clear()
        self._opponent_moves()
        return observation(self.board), self._info()

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        """Plays the action (and the opponent's replies)."""
        if self._ended or self.board.is_game_over() or self._truncated():
            raise IllegalMoveError("the game is over: reset() starts a new one")
        move = _move(action)
        if move is None or not self.board.is_legal(move):
            self._ended = True
            return observation(self.board), -1.0, True, False, self._info(illegal=True)
        mover = self.board.turn
        self.board.push(move)
        self._opponent_moves()
        outcome = self.board.outcome()
        side = mover if self.agent_side is None else self.agent_side
        reward = 0.0 if outcome is None or outcome.winner is None else (1.0 if outcome.winner == side else -1.0)
        self._ended = outcome is not None or self._truncated()
        return observation(self.board), reward, outcome is not None, outcome is None and self._truncated(), self._info()

    def render(self) -> Optional[str]:
        """The board as text (render mode ``'ansi'``; None without a render mode)."""
        return str(self.board) if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Nothing to release (an Engine opponent is the caller's to close)."""


class _AECBase:
    """What PettingZoo's ``AECEnv`` gives an environment, for when PettingZoo is missing."""

    possible_agents: List[str]
    agents: List[str]
    agent_selection: str

    @property
    def num_agents(self) -> int:
        """Agents still in the game."""
        return len(self.agents)

    @property
    def max_num_agents(self) -> int:
        """Agents at the start."""
        return len(self.possible_agents)

    @property
    def unwrapped(self) -> "_AECBase":
        """The environment itself (no wrappers here)."""
        return self

    def agent_iter(self, max_iter: int = 2 ** 63) -> Iterator[str]:
        """The agent to act, until every agent is done (or ``max_iter`` turns)."""
        for _ in range(max_iter):
            if not self.agents:
                return
            yield self.agent_selection


_AECParent: Any = _PettingZooAEC if _PettingZooAEC else _AECBase


class BaghchalAECEnv(_AECParent):  # type: ignore[misc]
    """Both sides as two agents, ``'goats'`` and ``'tigers'``, as a PettingZoo AEC environment
    (a ``pettingzoo.AECEnv`` when PettingZoo is installed): ``reset``, ``agent_selection``,
    ``last()``, ``step(action)`` (None for an agent whose game is over, which removes it),
    ``observe(agent)`` giving ``{"observation": planes, "action_mask": mask}`` (the mask all zeros
    for the agent not to move), ``agent_iter()``, and the dicts ``rewards`` (the last step's,
    for the agents still in), ``_cumulative_rewards``, ``terminations``, ``truncations`` and
    ``infos``. ``observation_space(agent)`` and ``action_space(agent)`` give the same object at
    each call. An action that is not legal ends the game: -1 for the agent that chose it, +1
    for the other, ``infos[agent]["illegal_action"]`` True.

    >>> env = BaghchalAECEnv()
    >>> env.reset(seed=1)
    >>> env.agent_selection
    'goats'
    >>> obs, reward, termination, truncation, info = env.last()
    >>> int(obs["action_mask"].sum())
    21
    """

    metadata = {"render_modes": ["ansi"], "name": "baghchal_v0", "is_parallelizable": False, "render_fps": 4}

    def __init__(self, *, repetition: str = "forbid", max_plies: Optional[int] = None,
                 render_mode: Optional[str] = None) -> None:
        if _PettingZooAEC:
            super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.possible_agents = ["goats", "tigers"]
        self.repetition = repetition
        self.max_plies = max_plies
        self.render_mode = render_mode
        action = _action_space()
        space = (_spaces.Dict if _spaces else Dict)({"observation": _planes_space(), "action_mask": _mask_space()})
        self.action_spaces = {a: action for a in self.possible_agents}
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.board = Board(repetition=repetition)
        self.agents: List[str] = []
        self.rewards: Dict[str, float] = {}
        self._cumulative_rewards: Dict[str, float] = {}
        self.terminations: Dict[str, bool] = {}
        self.truncations: Dict[str, bool] = {}
        self.infos: Dict[str, Dict[str, Any]] = {}
        self.agent_selection = self.possible_agents[0]
        self._illegal = False

    def action_space(self, agent: str) -> Any:
        """Discrete(217), the same object at each call."""
        return self.action_spaces[agent]

    def observation_space(self, agent: str) -> Any:
        """A Dict of the planes (Box, float32) and the mask (Box, int8), the same object at
        each call."""
        return self.observation_spaces[agent]

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        """A new game from the start (or ``options["obx"]``). Nothing here is random: ``seed``
        is accepted as PettingZoo asks."""
        self.board = Board((options or {}).get("obx"), repetition=self.repetition)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._illegal = False
        self.agent_selection = self.possible_agents[self.board.turn]
        self._check_end()

    def observe(self, agent: str) -> Dict[str, Any]:
        """The planes and, for the agent to move while the game goes on, the mask of its
        legal actions."""
        to_move = self.possible_agents[self.board.turn] == agent and not self._illegal
        mask = _mask(self.board) if to_move else np.zeros(ACTIONS, np.int8)
        return {"observation": observation(self.board), "action_mask": mask}

    def last(self, observe: bool = True) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        """What the selected agent sees: observation, its reward since it last acted,
        termination, truncation and info."""
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def _end(self, rewards: Dict[str, float], truncated: bool = False) -> None:
        for agent in self.agents:
            if truncated:
                self.truncations[agent] = True
            else:
                self.terminations[agent] = True
            self.rewards[agent] = rewards.get(agent, 0.0)

    def _check_end(self) -> None:
        outcome = self.board.outcome()
        self.agent_selection = self.possible_agents[self.board.turn]
        if outcome is not None:
            self._end({a: 0.0 if outcome.winner is None else (1.0 if outcome.winner == i else -1.0)
                       for i, a in enumerate(self.possible_agents)})
        elif self.max_plies is not None and len(self.board.move_stack) >= self.max_plies:
            self._end({}, truncated=True)

    def _accumulate(self) -> None:
        for agent, reward in self.rewards.items():
            self._cumulative_rewards[agent] += reward

    def step(self, action: Optional[int]) -> None:
        """Plays the selected agent's action; once the game is over each agent is stepped
        with None in turn and removed (with its entries in the dicts)."""
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            if action is not None:
                raise ValueError("the game is over for this agent: step(None) removes it")
            for table in (self.terminations, self.truncations, self.rewards, self._cumulative_rewards, self.infos):
                del table[agent]
            self.agents.remove(agent)
            self.rewards = {a: 0.0 for a in self.agents}
            if self.agents:
                self.agent_selection = self.agents[0]
            return
        if action is None:
            raise ValueError("the game goes on: an action is needed")
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        move = _move(action)
        if move is None or not self.board.is_legal(move):
            self._illegal = True
            self.infos[agent] = {"illegal_action": True}
            self._end({a: -1.0 if a == agent else 1.0 for a in self.agents})
            self._accumulate()
            return
        self.board.push(move)
        self._check_end()
        self._accumulate()

    def render(self) -> Optional[str]:
        """The board as text (render mode ``'ansi'``; None without a render mode)."""
        return str(self.board) if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Nothing to release."""


class VectorBaghchalEnv:
    """``num_envs`` games stepped at once in C, one call a step: no Python object per game.
    Arrays in and out (numpy): observations ``(num_envs, 6, 5, 5)`` float32, masks
    ``(num_envs, 217)`` int8, rewards float32, and ``terminated`` / ``truncated`` bool, as
    gymnasium's vector environments give them. ``agent_side`` None plays both sides (the reward
    is for the side that made the action); :data:`GOATS` or :data:`TIGERS` plays that side
    against random legal moves made in C. A game that ends is started again in the same step
    (gymnasium's same-step autoreset): its end is reported, and the observation and mask are
    the new game's. An action that is not legal ends that game as a loss for the side that
    chose it (``infos["illegal_action"]``). ``copy=False`` hands out the environment's own arrays
    (overwritten by the next step) instead of copies.

    >>> env = VectorBaghchalEnv(4)
    >>> obs, infos = env.reset(seed=7)
    >>> obs.shape, infos["action_mask"].sum(axis=1).tolist()
    ((4, 6, 5, 5), [21, 21, 21, 21])
    >>> obs, rewards, terminated, truncated, infos = env.step(env.sample_actions())
    >>> infos["action_mask"].sum(axis=1).tolist()   # the tigers' 12 moves after a placement
    [12, 12, 12, 12]
    """

    metadata = {"autoreset_mode": "SameStep"}

    def __init__(self, num_envs: int, *, agent_side: Optional[int] = None, repetition: str = "forbid",
                 max_plies: Optional[int] = None, seed: Optional[int] = None, copy: bool = True) -> None:
        if agent_side not in (None, GOATS, TIGERS):
            raise ValueError("agent_side must be None, GOATS or TIGERS")
        self.num_envs = num_envs
        self.agent_side = agent_side
        self.copy = copy
        self._games = _core.VecGames(num_envs, repetition=repetition, max_plies=max_plies or 0,
                                     agent_side=agent_side, seed=seed or 0)
        n = num_envs
        self._obs = np.zeros((n, 6, 5, 5), np.float32)
        self._mask = np.zeros((n, ACTIONS), np.int8)
        self._rewards = np.zeros(n, np.float32)
        self._terminated = np.zeros(n, np.bool_)
        self._truncated = np.zeros(n, np.bool_)
        self._illegal = np.zeros(n, np.bool_)
        self._actions = np.zeros(n, np.int64)
        self.single_action_space = _action_space()
        self.single_observation_space = _planes_space()
        self._games.reset(self._obs, self._mask)

    @property
    def games_finished(self) -> int:
        """Games ended since the environment was made."""
        return self._games.finished

    def _out(self, a: Any) -> Any:
        return a.copy() if self.copy else a

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict[str, Any]]:
        """Every game from the start; ``seed`` seeds the generators of the random moves."""
        self._games.reset(self._obs, self._mask, seed)
        return self._out(self._obs), {"action_mask": self._out(self._mask)}

    def step(self, actions: Sequence[int]) -> Tuple[Any, Any, Any, Any, Dict[str, Any]]:
        """One action for each game."""
        self._actions[:] = actions
        self._games.step(self._actions, self._obs, self._mask, self._rewards, self._terminated, self._truncated,
                         self._illegal)
        infos = {"action_mask": self._out(self._mask), "illegal_action": self._out(self._illegal)}
        return (self._out(self._obs), self._out(self._rewards), self._out(self._terminated),
                self._out(self._truncated), infos)

    def sample_actions(self) -> Any:
        """A random legal action for each game (int64), drawn in C."""
        out = np.empty(self.num_envs, np.int64)
        self._games.random_actions(out)
        return out

    def board(self, index: int) -> Board:
        """Game ``index`` as a :class:`~libbaghchal.Board`, its history included (a copy)."""
        return self._games.board(index, Board)

    def close(self) -> None:
        """Nothing to release."""


if _gym is not None:
    try:
        if ENV_ID not in _gym.registry:
            _gym.register(id=ENV_ID, entry_point="libbaghchal.env:BaghchalEnv")
    except Exception:  # noqa: BLE001 - registration is a convenience; the classes work without it
        pass
