"""The learning environments: masks always the legal moves, planes true to the board, rewards
from the game's end, and the gymnasium / PettingZoo conventions when those are installed."""
import random

import pytest

np = pytest.importorskip("numpy")

import libbaghchal  # noqa: E402
from libbaghchal import GOATS, TIGERS, Board, Engine, IllegalMoveError  # noqa: E402
from libbaghchal.engine import Limit  # noqa: E402
from libbaghchal.env import BaghchalAECEnv, BaghchalEnv, observation  # noqa: E402


def legal_mask(board):
    mask = np.zeros(217, np.int8)
    for m in board.legal_moves:
        mask[m.action] = 1
    return mask


def test_thousands_of_random_games_keep_the_mask_equal_to_the_legal_moves():
    rng = random.Random(1)
    env = BaghchalEnv(seed=1, repetition="forbid")
    results = {}
    steps = 0
    for game in range(2000):
        if game == 1000:
            env = BaghchalEnv(seed=2, repetition="draw", max_plies=150)
        obs, info = env.reset()
        while True:
            board = info["board"]
            assert np.array_equal(info["action_mask"], legal_mask(board))
            legal = np.flatnonzero(info["action_mask"])
            action = int(rng.choice(legal))
            mover = board.turn
            obs, reward, terminated, truncated, info = env.step(action)
            steps += 1
            if terminated or truncated:
                outcome = env.board.outcome()
                if terminated:
                    expected = 0.0 if outcome.winner is None else (1.0 if outcome.winner == mover else -1.0)
                    assert reward == expected and info["action_mask"].sum() == 0
                    results[outcome.termination] = results.get(outcome.termination, 0) + 1
                else:
                    assert outcome is None and reward == 0.0 and len(env.board.move_stack) == 150
                    results["truncated"] = results.get("truncated", 0) + 1
                break
            assert reward == 0.0
    assert steps > 50000
    assert {"five_captured", "tigers_trapped"} <= set(results)


def test_planes():
    board = Board()
    board.push("C3")
    obs = observation(board)
    assert obs.shape == (6, 5, 5) and obs.dtype == np.float32
    assert obs[0][0].tolist() == [1, 0, 0, 0, 1] and obs[1][2][2] == 1 and obs[2].sum() == 20
    assert (obs[3] == 1).all() and np.allclose(obs[4], 19 / 20) and (obs[5] == 0).all()
    assert libbaghchal.env.PLANES[0] == "tigers" and len(libbaghchal.env.PLANES) == 6


def test_one_side_against_an_opponent():
    for side in (GOATS, TIGERS):
        env = BaghchalEnv(agent_side=side, opponent="random", seed=4)
        for _ in range(30):
            obs, info = env.reset()
            terminated = truncated = False
            while not (terminated or truncated):
                assert env.board.turn == side
                action = int(np.flatnonzero(info["action_mask"])[0])
                obs, reward, terminated, truncated, info = env.step(action)
            outcome = env.board.outcome()
            assert reward == (0.0 if outcome.winner is None else 1.0 if outcome.winner == side else -1.0)
    with Engine(tablebase_path="", skill_level=0) as engine:
        env = BaghchalEnv(agent_side=GOATS, opponent=engine, opponent_limit=Limit(depth=2), seed=5)
        obs, info = env.reset()
        obs, reward, terminated, truncated, info = env.step(12)
        assert [str(m) for m in env.board.move_stack][0] == "C3" and env.board.turn == GOATS


def test_illegal_actions_are_refused_and_change_nothing():
    env = BaghchalEnv(seed=6)
    env.reset()
    for bad in (0, 216, -1, 300):
        with pytest.raises(IllegalMoveError):
            env.step(bad)
    assert env.board.move_stack == []
    env.reset(options={"obx": "TGGGT/GGXGG/GXGXG/GGXGG/TGGGT t @0 c3"})
    with pytest.raises(IllegalMoveError, match="the game is over"):
        env.step(25)
    with pytest.raises(ValueError):
        BaghchalEnv(agent_side=5)


def test_the_two_agent_environment():
    env = BaghchalAECEnv(repetition="draw", max_plies=300)
    rng = random.Random(7)
    for game in range(50):
        env.reset(seed=game)
        assert env.agents == ["goats", "tigers"]
        while env.agents:
            agent = env.agent_selection
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            assert agent == env.possible_agents[env.board.turn]
            assert np.array_equal(obs["action_mask"], legal_mask(env.board))
            other = env.possible_agents[1 - env.board.turn]
            assert env.observe(other)["action_mask"].sum() == 0
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        outcome = env.board.outcome()
        if outcome is not None and outcome.winner is not None:
            winner = env.possible_agents[outcome.winner]
            assert env._cumulative_rewards[winner] == 1.0
            assert env._cumulative_rewards[env.possible_agents[1 - outcome.winner]] == -1.0


def test_the_gymnasium_conventions_when_it_is_installed():
    gymnasium = pytest.importorskip("gymnasium")
    env = BaghchalEnv(seed=8)
    assert isinstance(env.action_space, gymnasium.spaces.Discrete) and env.action_space.n == 217
    obs, _ = env.reset()
    assert env.observation_space.contains(obs)
