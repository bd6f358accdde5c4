"""tools/distill/holdout.py: the benchmark's positions, and every position one move from
them, are left out of the training files; every other line is kept as it was."""
import os
import subprocess
import sys

from conftest import REPO

from libbaghchal import Board

HOLDOUT = os.path.join(REPO, "tools", "distill", "holdout.py")


def key(board):
    return " ".join(board.obx().split()[:4])


def test_holdout_leaves_out_the_benchmark_and_its_children(tmp_path):
    bench = Board()
    for move in ("C3", "A1B1", "B3"):
        bench.push(move)
    critical = tmp_path / "critical.txt"
    critical.write_text("# a benchmark of one position\n"
                        f"placement-early\ttigers\t{bench.obx()}\tdraw\tA5A4\n")
    children = []
    for move in list(bench.legal_moves):
        bench.push(move)
        children.append(key(bench))
        bench.pop()
    other = Board()
    other.push(list(other.legal_moves)[0])
    lines = [f"{key(bench)}\t0\t-\n", f"{children[0]}\t0\t-\n", f"{children[-1]}\t1\t-\n", f"{key(other)}\t0\t-\n"]
    data = tmp_path / "train.tsv"
    data.write_text("".join(lines))
    out = tmp_path / "clean"
    run = subprocess.run([sys.executable, HOLDOUT, "--positions", str(critical), str(data), "--out", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (out / "train.tsv").read_text() == lines[3]
    assert "train.tsv: 1 kept, 3 left out" in run.stderr
    assert f"{len(children) + 1} positions held out" in run.stderr


def test_holdout_refuses_a_bad_benchmark_line_and_writing_over_its_input(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("not a benchmark line\n")
    data = tmp_path / "train.tsv"
    data.write_text("")
    run = subprocess.run([sys.executable, HOLDOUT, "--positions", str(bad), str(data), "--out", str(tmp_path / "o")],
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert "not a line of critical.txt's" in run.stderr
    bad.write_text("movement\tgoats\tnot a position\tdraw\tC3\n")
    run = subprocess.run([sys.executable, HOLDOUT, "--positions", str(bad), str(data), "--out", str(tmp_path / "o")],
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert "not a position: 'not a position'" in run.stderr
    assert not (tmp_path / "o").exists()
    good = tmp_path / "good.txt"
    good.write_text(f"movement\tgoats\t{Board().obx()}\tdraw\tC3\n")
    run = subprocess.run([sys.executable, HOLDOUT, "--positions", str(good), str(data), "--out", str(tmp_path)],
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert "would be written over" in run.stderr
