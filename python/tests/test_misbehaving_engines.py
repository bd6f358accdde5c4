"""Programs that break the protocol, driven as engines over pipes: whatever they write, the
subprocess engine answers with an EngineError that says what was wrong, quickly and in little
memory. The fakes are small Python scripts; each is checked in a fresh interpreter, whose peak
memory is its own."""
import json
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from libbaghchal import Board, EngineError
from libbaghchal.engine import Limit, parse_info, popen

FAKE = '''\
import sys
def out(*lines):
    for line in lines:
        sys.stdout.write(line + "\\n")
    sys.stdout.flush()
for line in sys.stdin:
    words = line.split()
    command = words[0] if words else ""
    if command == "uci":
        {uci}
    elif command == "isready":
        {isready}
    elif command == "go":
        {go}
    elif command == "quit":
        break
'''


def fake(tmp_path, name="fake", uci='out("id name fake", "uciok")', isready='out("readyok")',
         go='out("info depth 1 multipv 1 score cp 5 pv C3", "bestmove C3")'):
    """A command that runs a fake engine answering uci, isready and go with the given code."""
    path = tmp_path / f"{name}.py"
    path.write_text(FAKE.format(uci=uci, isready=isready, go=go))
    return [sys.executable, str(path)]


# In a fresh interpreter, with its address space capped (a reader that kept everything would
# fail there rather than take the machine's memory): starts the command, plays a move from the
# start if asked, and reports the error, the time taken and how much its peak memory grew.
CHILD = '''\
import json, resource, sys, time
limit = 1 << 30
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from libbaghchal import Board
from libbaghchal.engine import EngineError, Limit, popen
command, timeout, play = json.loads(sys.argv[1])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.monotonic()
error = None
try:
    with popen(command, timeout=timeout) as engine:
        if play:
            engine.play(Board(), Limit(depth=1))
except EngineError as e:
    error = str(e)
except MemoryError:
    error = "MemoryError"
grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps({"error": error, "seconds": time.monotonic() - start, "grew_mb": grew / 1024}))
'''


def run_bounded(command, timeout, play=False):
    """What the child above reports: the error, the seconds it took and its memory growth."""
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps([command, timeout, play])],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("timeout", [12, 30, None])
def test_a_program_that_writes_forever_is_not_an_engine(timeout):
    yes = shutil.which("yes")
    if yes is None:
        pytest.skip("no yes(1) on this system")
    report = run_bounded([yes, "x" * 1000], timeout)
    assert report["error"] is not None and report["error"].startswith(f"not an engine: {yes!r} wrote "), report
    assert "without uciok, the first 'xxxxxxxx" in report["error"]
    assert report["seconds"] < 5 and report["grew_mb"] < 100, report


@pytest.mark.parametrize("timeout", [10, None])
def test_a_line_that_never_ends_is_refused(tmp_path, timeout):
    path = tmp_path / "endless.py"
    path.write_text("import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n    sys.stdout.flush()\n")
    report = run_bounded([sys.executable, str(path)], timeout)
    assert report["error"] == (f"not an engine: {sys.executable!r} wrote a line of more than 1048576 bytes: "
                               f"{'y' * 40!r}..."), report
    assert report["seconds"] < 5 and report["grew_mb"] < 100, report


def test_endless_options_are_not_an_engine(tmp_path):
    command = fake(tmp_path, uci='out(*["option name Hash%d type spin default 1 min 1 max 9" % i for i in range(10**6)])')
    report = run_bounded(command, None)
    assert report["error"].startswith(f"not an engine: {sys.executable!r} wrote 5001 lines"), report
    assert report["error"].endswith("without uciok, the first 'option name Hash0 type spin default 1 mi...'"), report
    assert report["seconds"] < 10 and report["grew_mb"] < 100, report


def test_output_that_does_not_answer_is_bounded_after_the_handshake(tmp_path):
    junk = 'out(*["junk %d" % i for i in range(10**6)])'
    report = run_bounded(fake(tmp_path, "ready", isready=junk), None)
    assert report["error"] == "the engine wrote 5001 lines (48900 bytes) without readyok, the first 'junk 0'", report
    report = run_bounded(fake(tmp_path, "go", go=junk), None, play=True)
    assert report["error"] == "the engine wrote 5001 lines (48900 bytes) without bestmove, the first 'junk 0'", report
    assert report["grew_mb"] < 100, report


def test_a_long_search_keeps_only_its_last_lines(tmp_path):
    # 150,000 info lines of 1 KB (150 MB) before the bestmove, a line with a pv among them.
    go = ('line = "info string " + "x" * 1000; '
          'out(*[line] * 75000); out("info depth 9 multipv 1 score cp 5 pv C3 A1B2"); out(*[line] * 75000); '
          'out("info depth 9 multipv 1 score cp 7 pv B3", "info depth 9 nodes 9", "bestmove B3")')
    command = fake(tmp_path, go=go)
    report = run_bounded(command, None, play=True)
    assert report["error"] is None and report["grew_mb"] < 100, report
    with popen(command) as engine:
        result = engine.play(Board(), Limit(depth=9))
        assert str(result.move) == "B3" and result.info["score"].cp == 7 and len(result.info["pv"]) == 1


def test_lines_of_unasked_multipv_are_refused(tmp_path):
    go = 'out("info depth 1 multipv 7 score cp 5 pv C3", "bestmove C3")'
    with popen(fake(tmp_path, go=go)) as engine:
        with pytest.raises(EngineError, match=r"^the engine wrote 'info depth 1 multipv 7 score cp 5 pv C3': multipv 7 is not one of the 1 lines asked for$"):
            engine.play(Board(), Limit(depth=1))


# Lines that break the protocol, each after a handshake that went well, and why they do.
BAD_LINES = [
    ("bestmove", "bestmove without a move"),
    ("bestmove zz", "'zz' is not a move"),
    ("bestmove A1A1", "'A1A1' is not a move"),
    ("bestmove A1B1", "A1B1 is not legal in TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #"),
    ("bestmove C3 ponder", "ponder without a move"),
    ("bestmove C3 ponder 17", "'17' is not a move"),
    ("info depth 1 score cp abc pv C3", "score 'cp abc' is not cp N or mate N"),
    ("info depth 1 score mate 1e3 pv C3", "score 'mate 1e3' is not cp N or mate N"),
    ("info depth 1 score pv C3", "score 'pv C3' is not cp N or mate N"),
    ("info depth 1 score cp", "score 'cp' is not cp N or mate N"),
    ("info depth x pv C3", "depth 'x' is not an integer"),
    ("info depth 1 time 1.5 pv C3", "time '1.5' is not an integer"),
    ("info multipv one pv C3", "multipv 'one' is not an integer"),
    ("info depth 2 multipv 2 pv C3", "multipv 2 is not one of the 1 lines asked for"),
    ("info depth 2 pv C3 Z9", "'Z9' is not a move"),
    ("info nodes 10 pv C3 nodes", "'nodes' is not a move"),
    ("info depth 1 seldepth pv C3", "seldepth 'pv' is not an integer"),
]


@pytest.mark.parametrize("line, why", BAD_LINES)
def test_every_broken_line_is_an_engine_error_naming_it(tmp_path, line, why):
    # The first search writes the broken line, the next ones a sound answer: the error comes
    # when the search has ended, so the engine answers the next command rightly.
    go = (f'n = globals().get("n", 0) + 1; out({line!r} if n == 1 else "info depth 1 score cp 5 pv C3", '
          f'"bestmove C3" if n > 1 or not {line!r}.startswith("bestmove") else "")')
    with popen(fake(tmp_path, go=go), timeout=10) as engine:
        with pytest.raises(EngineError) as info:
            engine.play(Board(), Limit(depth=1))
        assert str(info.value) == f"the engine wrote {line!r}: {why}"
        assert type(info.value) is EngineError
        result = engine.play(Board(), Limit(depth=1))
        assert str(result.move) == "C3" and result.info["score"].cp == 5
        assert engine.analyse(Board(), Limit(depth=1))["pv"] == [result.move]


@pytest.mark.parametrize("line, why", [(l, w) for l, w in BAD_LINES if l.startswith("info")])
def test_parse_info_names_the_broken_line(line, why):
    if "multipv 2 is not one" in why:
        return  # the lines asked for are the engine's, not the line's
    with pytest.raises(EngineError, match=f"^the engine wrote {re.escape(repr(line))}: {re.escape(why)}$"):
        parse_info(line)


def test_a_long_broken_line_is_named_by_its_start():
    line = "info depth 1 score cp x pv " + "C3 " * 1000
    with pytest.raises(EngineError) as info:
        parse_info(line)
    assert str(info.value) == f"the engine wrote {line[:200]!r}...: score 'cp x' is not cp N or mate N"


def test_sound_lines_still_read():
    assert parse_info("info depth 2 nodes +5 currmove C3 foo pv") == {"depth": 2, "nodes": 5, "currmove": "C3",
                                                                      "pv": []}
    assert parse_info("info string an odd 7 note") == {"string": "an odd 7 note"}
    assert parse_info("info") == {}


def test_an_empty_command_is_a_value_error():
    for command in ([], ""):
        with pytest.raises(ValueError, match="^an empty command: there is no program to start$"):
            popen(command)
