"""Programs that break the protocol, driven as engines over pipes: whatever they write, the
subprocess engine answers with an EngineError that says what was wrong, quickly and in little
memory. The fakes are small Python scripts; each is checked in a fresh interpreter, whose peak
memory is its own."""
import json
import shutil
import subprocess
import sys
import textwrap

import pytest

from baghchal import Board, EngineError
from baghchal.engine import Limit, popen

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
from baghchal import Board
from baghchal.engine import EngineError, Limit, popen
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
    go = ('line = "info currmove C3 currmovenumber 1" + " nodes 99" * 110; '
          'out(*[line] * 75000); out("info depth 9 multipv 1 score cp 5 pv C3 A1B2"); out(*[line] * 75000); '
          'out("info depth 9 multipv 1 score cp 7 pv E5", "info depth 9 nodes 9", "bestmove E5")')
    command = fake(tmp_path, go=go)
    report = run_bounded(command, None, play=True)
    assert report["error"] is None and report["grew_mb"] < 100, report
    with popen(command) as engine:
        result = engine.play(Board(), Limit(depth=9))
        assert str(result.move) == "E5" and result.info["score"].cp == 7 and len(result.info["pv"]) == 1


def test_lines_of_unasked_multipv_are_refused(tmp_path):
    go = 'out("info depth 1 multipv 7 score cp 5 pv C3", "bestmove C3")'
    with popen(fake(tmp_path, go=go)) as engine:
        with pytest.raises(EngineError, match=r"multipv 7 is not one of the lines asked for: 'info depth 1 multipv 7 "):
            engine.play(Board(), Limit(depth=1))
