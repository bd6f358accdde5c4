"""The package as others get it: beside the pure-Python `baghchal` package in one process, from
a source distribution that carries the engine's sources, as a wheel in a fresh venv, and from
an installed copy that the source folder does not shadow."""
import importlib
import importlib.util
import os
import pickle
import shutil
import subprocess
import sys
import textwrap

import pytest

import libbaghchal
from libbaghchal import pgn

from conftest import REPO

PYTHON_DIR = os.path.join(REPO, "python")

# A stand-in for the pure-Python `baghchal` package: its module layout (baghchal.env.Board,
# FEN and PGN as text) and a distinctive attribute to tell it apart.
STAND_IN = {
    "__init__.py": "STAND_IN = 'the pure-Python baghchal package'\nIMPORTED_BY = []\n",
    "env.py": textwrap.dedent('''\
        class Board:
            """Keeps a game as that package writes it."""
            def __init__(self):
                self.fen = "B3B/5/5/5/B3B G 0"
                self.pgn = ""
            def load(self, fen, pgn):
                self.fen, self.pgn = fen, pgn
                return self
        '''),
}


@pytest.fixture()
def stand_in(tmp_path, monkeypatch):
    """A module named `baghchal` first on sys.path; removed from sys.modules afterwards."""
    package = tmp_path / "site" / "baghchal"
    package.mkdir(parents=True)
    for name, text in STAND_IN.items():
        (package / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    saved = {k: v for k, v in sys.modules.items() if k == "baghchal" or k.startswith("baghchal.")}
    for k in saved:
        del sys.modules[k]
    importlib.invalidate_caches()
    yield package
    for k in [k for k in sys.modules if k == "baghchal" or k.startswith("baghchal.")]:
        del sys.modules[k]
    sys.modules.update(saved)


def test_a_module_named_baghchal_and_this_package_in_one_process(stand_in):
    import baghchal
    import baghchal.env

    assert baghchal.STAND_IN == "the pure-Python baghchal package"
    assert os.path.dirname(baghchal.__file__) == str(stand_in)
    assert not libbaghchal.__file__.startswith(str(stand_in))
    # Nothing of this package lives under the other's name: classes, errors and pickles name
    # libbaghchal, so they load back here even with the other package importable.
    for obj in (libbaghchal.Board, libbaghchal.Move, libbaghchal.IllegalMoveError, libbaghchal.Tablebase,
                libbaghchal.Engine):
        assert obj.__module__.split(".")[0] == "libbaghchal", obj
    board = libbaghchal.Board(repetition="draw")
    for m in ("C3", "A1B2", "C2"):
        board.push(m)
    again = pickle.loads(pickle.dumps(board))
    assert type(again) is libbaghchal.Board and again.move_stack == board.move_stack
    assert pickle.loads(pickle.dumps(libbaghchal.Move("A1B2"))) is libbaghchal.Move("A1B2")
    error = pickle.loads(pickle.dumps(libbaghchal.IllegalMoveError("x")))
    assert type(error) is libbaghchal.IllegalMoveError
    # Games handed across as that package's text: FEN and PGN both ways.
    theirs = baghchal.env.Board().load(board.fen(), board.pgn())
    assert theirs.pgn == "1. G33 B1122 2. G23"
    assert pgn.read_game(theirs.pgn).move_stack == board.move_stack
    assert libbaghchal.Board.from_fen(theirs.fen).obx().split()[:4] == board.obx().split()[:4]
    assert baghchal.IMPORTED_BY == []


def test_this_package_never_imports_the_other(tmp_path):
    """In a fresh interpreter with a `baghchal` that refuses to be imported, every module of
    this package imports and works."""
    site = tmp_path / "site" / "baghchal"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("raise ImportError('the other baghchal package was imported')\n")
    code = ("import libbaghchal, libbaghchal.engine, libbaghchal.pgn, libbaghchal.bench, libbaghchal.env\n"
            "import libbaghchal.svg\n"
            "b = libbaghchal.Board(); b.push('C3'); print(b.perft(2))\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=str(tmp_path), capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["240"]


def test_the_source_folder_does_not_shadow_the_installed_package():
    code = "import libbaghchal, os; print(libbaghchal.Board().perft(2)); print(libbaghchal.__file__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=PYTHON_DIR, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    count, path = out.stdout.split("\n")[:2]
    assert count == "252" and not path.startswith(PYTHON_DIR + os.sep + "libbaghchal")


SMOKE = textwrap.dedent('''\
    import os, sys
    import libbaghchal, libbaghchal.pgn
    from libbaghchal import Board, Move
    assert not os.path.abspath(libbaghchal.__file__).startswith(sys.argv[1]), libbaghchal.__file__
    board = Board()
    assert board.perft(3) == 5052
    assert len(board.legal_moves) == 21 and Move("C3") in board.legal_moves
    board.push("C3")
    assert sorted(str(m) for m in board.legal_moves)[:3] == ["A1A2", "A1B1", "A1B2"]
    assert libbaghchal.pgn.read_game(board.pgn()).move_stack == [Move("C3")]
    print("smoke", libbaghchal.VERSION, os.path.dirname(libbaghchal.__file__))
    ''')


def run(args, cwd, timeout=600):
    out = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                         env=dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1"))
    assert out.returncode == 0, f"{args}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout


def smoke(venv_python, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir(exist_ok=True)
    (empty / "smoke.py").write_text(SMOKE)
    out = run([venv_python, "smoke.py", REPO], cwd=str(empty))
    assert out.startswith(f"smoke {libbaghchal.VERSION} ")
    assert str(tmp_path / "venv") in out


@pytest.mark.skipif(importlib.util.find_spec("build") is None, reason="python3-build is not installed")
def test_the_sdist_and_the_wheel_build_offline_and_install_elsewhere(tmp_path):
    # A copy of what the package is built from (python/ and the engine beside it), so that the
    # build writes nothing into the checkout.
    checkout = tmp_path / "checkout"
    for name in ("setup.py", "pyproject.toml", "MANIFEST.in", "README.md"):
        (checkout / "python").mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.join(PYTHON_DIR, name), checkout / "python" / name)
    shutil.copytree(os.path.join(PYTHON_DIR, "src"), checkout / "python" / "src",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__", "*.egg-info"))
    shutil.copytree(os.path.join(REPO, "engine"), checkout / "engine")
    shutil.copy2(os.path.join(REPO, "LICENSE"), checkout / "LICENSE")
    dist = tmp_path / "dist"
    # sdist, then a wheel built from the unpacked sdist (what `build` does with neither flag).
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(checkout / "python")],
        cwd=str(tmp_path))
    sdists = list(dist.glob("libbaghchal-*.tar.gz"))
    wheels = list(dist.glob("libbaghchal-*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1
    import tarfile

    with tarfile.open(sdists[0]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert {"csrc/engine/baghchal.h", "csrc/engine/game.c", "csrc/engine/tb/tb.c", "src/libbaghchal/_core.c",
            "src/libbaghchal/data/positions-v1.txt", "setup.py", "LICENSE"} <= names

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], cwd=str(tmp_path))
    python = str(venv / "bin" / "python")
    run([python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", str(wheels[0])], cwd=str(tmp_path))
    smoke(python, tmp_path)

    # The sdist alone, in a folder with nothing else: pip builds its wheel there.
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy2(sdists[0], alone)
    shutil.rmtree(checkout)
    run([python, "-m", "pip", "wheel", "-q", "--no-index", "--no-build-isolation", "--no-deps", "-w", "out",
         sdists[0].name], cwd=str(alone))
    built = list((alone / "out").glob("libbaghchal-*.whl"))
    assert len(built) == 1
    run([python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--force-reinstall", str(built[0])],
        cwd=str(alone))
    smoke(python, tmp_path)
