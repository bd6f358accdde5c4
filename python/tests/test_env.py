"""The learning environments: masks always the legal moves, planes true to the board, rewards
from the game's end, and the gymnasium / PettingZoo conventions when those are installed."""
import copy
import random

import pytest

np = pytest.importorskip("numpy")

import libbaghchal  # noqa: E402
from libbaghchal import GOATS, TIGERS, Board, Engine, IllegalMoveError  # noqa: E402
from libbaghchal.engine import Limit  # noqa: E402
from libbaghchal.env import ENV_ID, BaghchalAECEnv, BaghchalEnv, VectorBaghchalEnv, observation  # noqa: E402


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


def test_an_illegal_action_ends_the_game_as_a_loss_and_says_so():
    for bad in (0, 216, -1, 300, "x", None):
        env = BaghchalEnv(seed=6)
        env.reset()
        obs, reward, terminated, truncated, info = env.step(bad)
        assert (reward, terminated, truncated) == (-1.0, True, False) and info["illegal_action"] is True
        assert env.board.move_stack == [] and info["action_mask"].sum() == 0
        with pytest.raises(IllegalMoveError, match="the game is over"):
            env.step(12)
    env = BaghchalEnv(agent_side=TIGERS, seed=2)
    env.reset()
    obs, reward, terminated, truncated, info = env.step(12)  # a placement, from the tigers
    assert reward == -1.0 and terminated and len(env.board.move_stack) == 1
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
        final = None
        while env.agents:
            agent = env.agent_selection
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                final = final or dict(env._cumulative_rewards)
                env.step(None)
                assert agent not in env.agents and agent not in env.rewards
                continue
            assert agent == env.possible_agents[env.board.turn]
            assert np.array_equal(obs["action_mask"], legal_mask(env.board))
            other = env.possible_agents[1 - env.board.turn]
            assert env.observe(other)["action_mask"].sum() == 0
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        outcome = env.board.outcome()
        if outcome is not None and outcome.winner is not None:
            winner = env.possible_agents[outcome.winner]
            assert final[winner] == 1.0
            assert final[env.possible_agents[1 - outcome.winner]] == -1.0


ENV_KINDS = [{}, {"agent_side": GOATS}, {"agent_side": TIGERS}, {"max_plies": 30, "repetition": "draw"}]


def test_gymnasium_check_env_passes():
    pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env
    import gymnasium

    for kw in ENV_KINDS:
        env = BaghchalEnv(**kw)
        assert isinstance(env, gymnasium.Env)
        check_env(env)
        made = gymnasium.make(ENV_ID, render_mode="ansi", **kw)
        check_env(made.unwrapped)
        assert "T---" in made.unwrapped.render()


def test_the_gymnasium_conventions_without_gymnasium():
    """What check_env asks, asked directly: seeded resets repeat and seed np_random with a new
    generator, observations lie in the space, a random action (masked or not) steps without
    raising, one step repeats after the same seed, and the mask lets the space pick legal moves."""
    for kw in ENV_KINDS:
        env = BaghchalEnv(**kw)
        space, action_space = env.observation_space, env.action_space
        assert action_space.n == 217 and tuple(space.shape) == (6, 5, 5) and space.dtype == np.float32
        first, _ = env.reset(seed=123)
        rng_1 = copy.deepcopy(env.np_random)
        second, _ = env.reset()
        third, _ = env.reset(seed=123)
        rng_3 = copy.deepcopy(env.np_random)
        assert np.array_equal(first, third) and rng_1.bit_generator.state == rng_3.bit_generator.state
        env.reset(seed=456)
        assert env.np_random.bit_generator.state != rng_1.bit_generator.state
        for obs in (first, second, third):
            assert space.contains(obs)
        action_space.seed(123)
        action = action_space.sample()
        results = []
        for _ in range(2):
            env.reset(seed=123)
            before = env.np_random
            results.append(env.step(action))
            assert env.np_random is before
        (o0, r0, t0, u0, i0), (o1, r1, t1, u1, i1) = results
        assert np.array_equal(o0, o1) and r0 == r1 and t0 == t1 and u0 is u1 is False
        assert isinstance(r0, float) and isinstance(t0, bool) and isinstance(i0, dict) and space.contains(o0)
        assert np.array_equal(i0["action_mask"], i1["action_mask"]) and i0["board"] == i1["board"]
        obs, info = env.reset(seed=5)
        for _ in range(40):
            action = action_space.sample(info["action_mask"])
            assert info["action_mask"][action] == 1
            obs, reward, terminated, truncated, info = env.step(action)
            assert "illegal_action" not in info
            if terminated or truncated:
                break


def test_the_random_opponent_follows_the_seed():
    games = []
    for _ in range(2):
        env = BaghchalEnv(agent_side=GOATS)
        obs, info = env.reset(seed=11)
        while True:
            obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            if terminated or truncated:
                break
        games.append([str(m) for m in env.board.move_stack])
    assert games[0] == games[1] and len(games[0]) > 10


def test_pettingzoo_api_test_passes():
    pytest.importorskip("pettingzoo")
    import pettingzoo
    from pettingzoo.test import api_test

    for kw in ({}, {"repetition": "draw", "max_plies": 40}):
        env = BaghchalAECEnv(**kw)
        assert isinstance(env, pettingzoo.AECEnv)
        api_test(env, num_cycles=300)


def test_the_pettingzoo_conventions_without_pettingzoo():
    """What api_test asks, asked directly: the same space objects at each call, observations in
    them with their dtypes, rewards only for the agents still in, last() the reward summed since
    the agent last acted, dead agents stepped with None and removed, int32 actions."""
    env = BaghchalAECEnv(repetition="draw", max_plies=120)
    env.reset(seed=0, options={"options": 1})
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
    assert not any(env.terminations.values()) and not any(env.truncations.values()) and env.num_agents == 2
    assert env.last(observe=False)[0] is None
    rng = np.random.default_rng(3)
    for game in range(30):
        env.reset()
        summed = {a: 0.0 for a in env.agents}
        finished = set()
        for agent in env.agent_iter(1000):
            obs, reward, terminated, truncated, info = env.last()
            assert reward == summed[agent] and agent not in finished
            summed[agent] = 0.0
            space = env.observation_space(agent)
            assert space.contains(obs)
            assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
            if terminated or truncated:
                finished.add(agent)
                action = None
            else:
                action = np.int32(env.action_space(agent).sample(obs["action_mask"]))
            assert env.step(action) is None
            for a, r in env.rewards.items():
                summed[a] += r
            for table in (env.rewards, env.terminations, env.truncations, env.infos):
                assert set(table) == set(env.agents)
            assert env.num_agents == len(env.agents)
        assert not env.agents and finished == {"goats", "tigers"}
    env.reset()
    env.step(0)  # A1 is a tiger's point: the goats lose
    assert env.terminations == {"goats": True, "tigers": True} and env.infos["goats"] == {"illegal_action": True}
    assert env.last()[1] == -1.0 and env._cumulative_rewards["tigers"] == 1.0


def test_the_vectorised_environment_follows_the_rules():
    env = VectorBaghchalEnv(64, repetition="draw", max_plies=200, seed=3)
    obs, infos = env.reset(seed=3)
    boards = [env.board(i) for i in range(64)]
    assert all(b.move_stack == [] for b in boards) and obs.shape == (64, 6, 5, 5)
    ended = 0
    for step in range(400):
        for i in (0, 17, 63):
            board = env.board(i)
            assert np.array_equal(infos["action_mask"][i], legal_mask(board)), (step, i)
            assert np.array_equal(obs[i], observation(board))
        actions = env.sample_actions()
        assert all(infos["action_mask"][i][a] == 1 for i, a in enumerate(actions))
        movers = [env.board(i).turn for i in range(3)]
        before = [env.board(i) for i in range(3)]
        obs, rewards, terminated, truncated, infos = env.step(actions)
        for i in range(3):
            if terminated[i]:
                after = before[i].copy()
                after.push(libbaghchal.Move.from_action(int(actions[i])))
                outcome = after.outcome()
                assert outcome is not None
                expected = 0.0 if outcome.winner is None else 1.0 if outcome.winner == movers[i] else -1.0
                assert rewards[i] == expected
        assert not infos["illegal_action"].any()
        ended += int((terminated | truncated).sum())
    assert ended > 0 and env.games_finished == ended
    # An illegal action ends that game only, as a loss for the side that chose it.
    env.reset(seed=1)
    actions = env.sample_actions()
    actions[5] = 0  # A1: a tiger's point
    obs, rewards, terminated, truncated, infos = env.step(actions)
    assert infos["illegal_action"].tolist() == [i == 5 for i in range(64)]
    assert rewards[5] == -1.0 and terminated[5] and env.board(5).move_stack == []


def test_the_vectorised_environment_against_random_moves():
    env = VectorBaghchalEnv(32, agent_side=TIGERS, seed=9, copy=False)
    obs, infos = env.reset()
    assert all(env.board(i).turn == TIGERS and len(env.board(i).move_stack) == 1 for i in range(32))
    total = 0.0
    for _ in range(300):
        obs, rewards, terminated, truncated, infos = env.step(env.sample_actions())
        assert all(env.board(i).turn == TIGERS for i in range(32))
        total += float(rewards.sum())
    assert env.games_finished > 10
    with pytest.raises(ValueError):
        env._games.step(np.zeros(3, np.int64), *[np.zeros(1)] * 6)
    with pytest.raises(ValueError):
        VectorBaghchalEnv(4, agent_side=7)
