"""The package's promises about itself: every public name documented, the examples in the
docstrings true, the stubs naming what the extension has, the files a type checker needs."""
import ast
import doctest
import inspect
import os

import libbaghchal
import libbaghchal.engine
import libbaghchal.bench
import libbaghchal.env
import libbaghchal.pgn
import libbaghchal.svg
from libbaghchal import _core

PUBLIC_CLASSES = [libbaghchal.Board, libbaghchal.Move, libbaghchal.Tablebase, libbaghchal.Engine, libbaghchal.Outcome,
                  libbaghchal.TablebaseValue, libbaghchal.engine.SimpleEngine, libbaghchal.engine.Score,
                  libbaghchal.engine.Limit, libbaghchal.engine.PlayResult, libbaghchal.env.BaghchalEnv,
                  libbaghchal.env.BaghchalAECEnv, libbaghchal.env.VectorBaghchalEnv, libbaghchal.LegalMoves,
                  libbaghchal.pgn.Game, libbaghchal.svg.Arrow]


def public_members(cls):
    """The public members the package defines (not those a base class of gymnasium or PettingZoo
    brings, when they are installed)."""
    for name in dir(cls):
        if name.startswith("_"):
            continue
        owner = next((c for c in cls.__mro__ if name in vars(c)), cls)
        if not (owner.__module__ or "").startswith("libbaghchal") and owner not in (object, tuple):
            continue
        yield name, inspect.getattr_static(cls, name)


def test_every_public_name_has_a_docstring():
    missing = []
    for name in libbaghchal.__all__:
        obj = getattr(libbaghchal, name)
        if (inspect.isclass(obj) or callable(obj)) and not (obj.__doc__ or "").strip():
            missing.append(name)
    for module in (libbaghchal.engine, libbaghchal.env, libbaghchal.bench, libbaghchal.pgn, libbaghchal.svg):
        for name in module.__all__:
            obj = getattr(module, name)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and not (obj.__doc__ or "").strip():
                missing.append(f"{module.__name__}.{name}")
    for cls in PUBLIC_CLASSES:
        for name, member in public_members(cls):
            # Fields of NamedTuples and dataclasses are described in their class's docstring.
            fields = set(getattr(cls, "_fields", ())) | set(getattr(cls, "__dataclass_fields__", {}))
            if name in fields or name in ("count", "index"):
                continue
            if not (getattr(member, "__doc__", None) or "").strip():
                missing.append(f"{cls.__name__}.{name}")
    assert missing == []


# Examples that need what the suite is given from outside, found by what they call: the
# database from the standard folder, and the protocol executable on PATH.
NEEDS = {"database": "Tablebase(", "executable": 'popen("baghchal")'}


def docstring_examples(needs=None):
    """The doctests of every docstring in the package (its modules, their classes and functions,
    and the C classes' methods) whose examples need ``needs`` (a key of NEEDS, or None for
    nothing from outside)."""
    globs = dict(vars(libbaghchal))
    globs.update(Limit=libbaghchal.engine.Limit, Score=libbaghchal.engine.Score, popen=libbaghchal.engine.popen,
                 parse_info=libbaghchal.engine.parse_info)
    finder = doctest.DocTestFinder()
    globs.update(vars(libbaghchal.env))
    globs.update(vars(libbaghchal.pgn))
    tests = []
    for module in (libbaghchal, libbaghchal.engine, libbaghchal.env, libbaghchal.pgn, libbaghchal.bench,
                   libbaghchal.svg):
        tests += finder.find(module, globs=globs)
    parser = doctest.DocTestParser()
    # The C classes' methods and properties, which the module finder does not reach.
    for cls in (_core.Move, _core.LegalMoves, _core.Board, _core.Tablebase, _core.Engine):
        for name, member in vars(cls).items():
            doc = getattr(member, "__doc__", None)
            if doc and ">>>" in doc:
                tests.append(parser.get_doctest(doc, dict(globs), f"{cls.__name__}.{name}", None, 0))
    for module in (_core,):
        for name, member in vars(module).items():
            doc = getattr(member, "__doc__", None)
            if callable(member) and not inspect.isclass(member) and doc and ">>>" in doc:
                tests.append(parser.get_doctest(doc, dict(globs), name, None, 0))

    def need(test):
        source = "".join(example.source for example in test.examples)
        return next((key for key, call in NEEDS.items() if call in source), None)

    return [test for test in tests if test.examples and need(test) == needs]


def run_examples(tests):
    """Runs the doctests; the number of examples, after checking that none failed or was skipped."""
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in tests:
        runner.run(test)
    skipped = [test.name for test in tests for example in test.examples if example.options.get(doctest.SKIP)]
    assert skipped == [], "every example runs"
    assert runner.summarize(verbose=False).failed == 0
    return sum(len(test.examples) for test in tests)


def test_the_examples_in_the_docstrings_hold():
    assert run_examples(docstring_examples()) > 40


def test_the_examples_that_read_the_database_hold(tb_dir, monkeypatch):
    monkeypatch.setenv("BAGHCHAL_TABLEBASE_PATH", tb_dir)
    tests = docstring_examples("database")
    assert [test.name for test in tests] == ["libbaghchal.Tablebase"]
    run_examples(tests)


def test_the_examples_that_start_the_executable_hold(engine_path, monkeypatch):
    monkeypatch.setenv("PATH", os.path.dirname(engine_path) + os.pathsep + os.environ.get("PATH", ""))
    tests = docstring_examples("executable")
    assert [test.name for test in tests] == ["libbaghchal.engine.SimpleEngine"]
    run_examples(tests)


def stub_names(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    top, members = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            top.add(node.name)
            members[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        elif isinstance(node, ast.FunctionDef):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
        elif isinstance(node, ast.Assign):
            top.update(t.id for t in node.targets)
    return top, members


def test_the_stubs_name_what_the_extension_has():
    package = os.path.dirname(libbaghchal.__file__)
    assert os.path.isfile(os.path.join(package, "py.typed"))
    top, members = stub_names(os.path.join(package, "_core.pyi"))
    real = {n for n in dir(_core) if not n.startswith("__")}
    assert real <= top, real - top
    for cls in (_core.Move, _core.LegalMoves, _core.Board, _core.Tablebase, _core.Engine, _core.VecGames):
        own = {n for n in vars(cls) if not n.startswith("__") or n in ("__copy__", "__deepcopy__")}
        assert own <= members[cls.__name__] | {"__new__"}, (cls.__name__, own - members[cls.__name__])


def test_the_version_is_the_engines():
    header = open(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                               "engine", "types.h"), encoding="utf-8").read()
    assert f'#define BAGHCHAL_VERSION "{libbaghchal.VERSION}"' in header
