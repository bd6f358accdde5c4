"""Learning environments over the engine's rules: a single-agent one shaped like gymnasium's
``Env`` (:class:`BaghchalEnv`) and a two-agent one shaped like PettingZoo's AEC environments
(:class:`BaghchalAECEnv`). Neither imports gymnasium or PettingZoo; when gymnasium is installed
their ``action_space`` and ``observation_space`` are its spaces. numpy is needed.

Actions are the 217 actions of the pure-Python ``baghchal`` package (:attr:`Move.action`);
the legal ones come as a mask of 217 ``int8`` values. Observations are planes of 5 x 5 points
(:data:`PLANES` names them, row 1 first, column A first): the tigers, the goats, the empty
points, the side to move, the goats in hand / 20 and the goats captured / 5.

>>> env = BaghchalEnv(seed=1)
>>> obs, info = env.reset()
>>> obs.shape, int(info["action_mask"].sum())
((6, 5, 5), 21)
>>> obs, reward, terminated, truncated, info = env.step(12)   # a goat on C3
>>> env.board.move_stack
[Move('C3')]
"""
from __future__ import annotations

import random
from typing import Any, Dict, List, Optional, Tuple, Union

from . import GOATS, TIGERS, Board, IllegalMoveError, Move
from .engine import Engine, Limit

__all__ = ["PLANES", "ACTIONS", "BaghchalEnv", "BaghchalAECEnv", "observation"]

PLANES = ["tigers", "goats", "empty", "tigers_to_move", "goats_in_hand", "goats_captured"]
"""The observation's planes, in order."""

ACTIONS = 217
"""The number of actions."""


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is a Debian package away
        raise ImportError("libbaghchal.env needs numpy (Debian: python3-numpy)") from None
    return numpy


def observation(board: Board) -> Any:
    """The planes of a board as a float32 array of shape (6, 5, 5) (see :data:`PLANES`)."""
    np = _numpy()
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
    np = _numpy()
    return np.frombuffer(board.action_mask(), dtype=np.uint8).astype(np.int8)


def _spaces() -> Tuple[Any, Any]:
    """gymnasium's spaces when it is installed, else None."""
    try:
        from gymnasium import spaces
    except ImportError:
        return None, None
    np = _numpy()
    return spaces.Discrete(ACTIONS), spaces.Box(0.0, 1.0, shape=(6, 5, 5), dtype=np.float32)


Opponent = Union[None, str, Engine]


class BaghchalEnv:
    """One game at a time, for one agent (``agent_side`` :data:`GOATS` or :data:`TIGERS`)
    against an ``opponent`` (``'random'``, or an :class:`Engine` searching to ``opponent_limit``,
    its strength set by its skill level), or for both sides in turn (``agent_side=None``).

    ``reset()`` gives ``(observation, info)`` and ``step(action)`` gives ``(observation, reward,
    terminated, truncated, info)`` as gymnasium's ``Env`` does; ``info["action_mask"]`` marks the
    legal actions of the side to move, ``info["board"]`` is the board. The reward is 1 for a
    win, -1 for a loss and 0 otherwise, when the game ends, for the agent (with both sides
    played, for the side that made the action). ``terminated`` is the game's end by the rules
    and the repetition rule (``repetition``); ``truncated`` is ``max_plies`` reached. An
    illegal action raises :class:`IllegalMoveError` and changes nothing.

    >>> env = BaghchalEnv(agent_side=TIGERS, opponent="random", seed=3)
    >>> obs, info = env.reset()
    >>> env.board.turn == TIGERS and len(env.board.move_stack) == 1
    True
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, *, agent_side: Optional[int] = None, opponent: Opponent = "random",
                 opponent_limit: Optional[Limit] = None, repetition: str = "forbid",
                 max_plies: Optional[int] = None, seed: Optional[int] = None) -> None:
        if agent_side not in (None, GOATS, TIGERS):
            raise ValueError("agent_side must be None, GOATS or TIGERS")
        if agent_side is not None and not (opponent == "random" or isinstance(opponent, Engine)):
            raise ValueError("opponent must be 'random' or an Engine")
        self.agent_side = agent_side
        self.opponent = opponent
        self.opponent_limit = opponent_limit or Limit(depth=4)
        self.repetition = repetition
        self.max_plies = max_plies
        self.action_space, self.observation_space = _spaces()
        self._rng = random.Random(seed)
        self.board = Board(repetition=repetition)  # checks the rule now, not at the first reset

    def _opponent_moves(self) -> None:
        while (self.agent_side is not None and self.board.turn != self.agent_side
               and not self.board.is_game_over() and not self._truncated()):
            if isinstance(self.opponent, Engine):
                move = self.opponent.play(self.board, self.opponent_limit).move
            else:
                move = self._rng.choice(self.board.legal_moves)
            self.board.push(move)

    def _truncated(self) -> bool:
        return self.max_plies is not None and len(self.board.move_stack) >= self.max_plies

    def _info(self) -> Dict[str, Any]:
        return {"action_mask": _mask(self.board), "board": self.board}

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict[str, Any]]:
        """A new game from the start (or from ``options["obx"]``); the opponent moves first
        when it is to move."""
        if seed is not None:
            self._rng.seed(seed)
        obx = (options or {}).get("obx")
        self.board = Board(obx, repetition=self.repetition)
        if isinstance(self.opponent, Engine):
            self.opponent.clear()
        self._opponent_moves()
        return observation(self.board), self._info()

    def step(self, action: int) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        """Plays the action (and the opponent's replies)."""
        if self.board.is_game_over() or self._truncated():
            raise IllegalMoveError("the game is over: reset() starts a new one")
        try:
            move = Move.from_action(int(action))
        except ValueError as e:
            raise IllegalMoveError(str(e)) from None
        mover = self.board.turn
        if not self.board.is_legal(move):
            raise IllegalMoveError(f"action {int(action)} ({move}) is not legal here")
        self.board.push(move)
        self._opponent_moves()
        outcome = self.board.outcome()
        side = mover if self.agent_side is None else self.agent_side
        reward = 0.0 if outcome is None or outcome.winner is None else (1.0 if outcome.winner == side else -1.0)
        return observation(self.board), reward, outcome is not None, outcome is None and self._truncated(), self._info()

    def render(self) -> str:
        """The board as text."""
        return str(self.board)

    def close(self) -> None:
        """Nothing to release (an Engine opponent is the caller's to close)."""


class BaghchalAECEnv:
    """Both sides as two agents, ``'goats'`` and ``'tigers'``, in PettingZoo's AEC shape:
    ``reset``, ``agent_selection``, ``last()``, ``step(action)`` (None for an agent whose game
    is over), ``observe(agent)`` giving ``{"observation": planes, "action_mask": mask}`` (the
    mask all zeros for the agent not to move), and the dicts ``rewards``,
    ``_cumulative_rewards``, ``terminations``, ``truncations`` and ``infos``.

    >>> env = BaghchalAECEnv()
    >>> env.reset(seed=1)
    >>> env.agent_selection
    'goats'
    >>> obs, reward, termination, truncation, info = env.last()
    >>> int(obs["action_mask"].sum())
    21
    """

    metadata = {"render_modes": ["ansi"], "name": "baghchal_v0", "is_parallelizable": False}
    possible_agents = ["goats", "tigers"]

    def __init__(self, *, repetition: str = "forbid", max_plies: Optional[int] = None) -> None:
        self.repetition = repetition
        self.max_plies = max_plies
        self._action_space, self._observation_space = _spaces()
        self.board = Board(repetition=repetition)
        self.agents: List[str] = []

    def action_space(self, agent: str) -> Any:
        """gymnasium's Discrete(217) (None without gymnasium)."""
        return self._action_space

    def observation_space(self, agent: str) -> Any:
        """A gymnasium Dict of the planes and the mask (None without gymnasium)."""
        if self._observation_space is None:
            return None
        from gymnasium import spaces
        np = _numpy()
        return spaces.Dict({"observation": self._observation_space,
                            "action_mask": spaces.Box(0, 1, shape=(ACTIONS,), dtype=np.int8)})

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        """A new game from the start (or ``options["obx"]``)."""
        self.board = Board((options or {}).get("obx"), repetition=self.repetition)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: Dict[str, Dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.board.turn]
        self._check_end()

    def observe(self, agent: str) -> Dict[str, Any]:
        """The planes and, for the agent to move, the mask of its legal actions."""
        np = _numpy()
        mask = _mask(self.board) if self.possible_agents[self.board.turn] == agent else np.zeros(ACTIONS, np.int8)
        return {"observation": observation(self.board), "action_mask": mask}

    def last(self, observe: bool = True) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        """What the selected agent sees: observation, its reward so far, termination,
        truncation and info."""
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def _check_end(self) -> None:
        outcome = self.board.outcome()
        truncated = outcome is None and self.max_plies is not None and len(self.board.move_stack) >= self.max_plies
        self.agent_selection = self.possible_agents[self.board.turn]
        if outcome is None and not truncated:
            return
        for i, agent in enumerate(self.possible_agents):
            if outcome is not None:
                self.terminations[agent] = True
                self.rewards[agent] = 0.0 if outcome.winner is None else (1.0 if outcome.winner == i else -1.0)
                self._cumulative_rewards[agent] += self.rewards[agent]
            else:
                self.truncations[agent] = True

    def step(self, action: Optional[int]) -> None:
        """Plays the selected agent's action; once the game is over each agent is stepped
        with None in turn and removed."""
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            if action is not None:
                raise IllegalMoveError("the game is over: step(None) for each agent")
            self.agents.remove(agent)
            if self.agents:
                self.agent_selection = self.agents[0]
            return
        if action is None:
            raise IllegalMoveError("the game goes on: an action is needed")
        try:
            move = Move.from_action(int(action))
        except ValueError as e:
            raise IllegalMoveError(str(e)) from None
        if not self.board.is_legal(move):
            raise IllegalMoveError(f"action {int(action)} ({move}) is not legal here")
        self.rewards = {a: 0.0 for a in self.possible_agents}
        self._cumulative_rewards[agent] = 0.0
        self.board.push(move)
        self._check_end()

    def render(self) -> str:
        """The board as text."""
        return str(self.board)

    def close(self) -> None:
        """Nothing to release."""
