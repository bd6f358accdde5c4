"""Shared fixtures: the repository's data, the protocol executable and the movement database.

BAGHCHAL_BIN names the folder of the built programs (default: <repository>/build/bin) and
BAGHCHAL_TB_DIR the folder holding baghchal.tb (tools/run-tests.sh sets both)."""
import os
import random
from typing import Iterator, List

import pytest

import libbaghchal
from libbaghchal import engine as bengine

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def bin_dir() -> str:
    return os.environ.get("BAGHCHAL_BIN", os.path.join(REPO, "build", "bin"))


@pytest.fixture(scope="session")
def engine_path() -> str:
    path = os.path.join(bin_dir(), "baghchal")
    if not os.access(path, os.X_OK):
        pytest.skip(f"no protocol executable at {path} (set BAGHCHAL_BIN)")
    return path


@pytest.fixture(scope="session")
def tb_dir() -> str:
    path = os.environ.get("BAGHCHAL_TB_DIR", "")
    if not path or not os.path.isfile(os.path.join(path, "baghchal.tb")):
        pytest.skip("no movement database (set BAGHCHAL_TB_DIR to the folder of baghchal.tb)")
    return path


@pytest.fixture()
def protocol(engine_path: str) -> Iterator[bengine.SimpleEngine]:
    """The executable with no database from the standard folder."""
    env = dict(os.environ, BAGHCHAL_TABLEBASE_PATH="")
    with bengine.popen(engine_path, env=env, timeout=60) as e:
        yield e


def random_game(rng: random.Random, plies: int, repetition: str = "forbid", start: str = None) -> libbaghchal.Board:
    """A board after up to `plies` random legal moves (fewer when the game ends)."""
    board = libbaghchal.Board(start, repetition=repetition)
    for _ in range(plies):
        moves = board.legal_moves
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def movement_positions(rng: random.Random, count: int, repetition: str) -> List[libbaghchal.Board]:
    """Games played at random past the placement phase, still going on."""
    out = []
    while len(out) < count:
        board = random_game(rng, 40 + rng.randrange(40), repetition)
        if board.goats_in_hand == 0 and not board.is_game_over():
            out.append(board)
    return out
