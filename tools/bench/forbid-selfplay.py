#!/usr/bin/env python3
"""Self-play of the engine with the full solution under the no-repetition rule (`forbid`),
at doubling times per move: the goats' score against thinking time.

For each time T (ms a move) baghchal-referee plays the engine against itself, one game at a
time (--concurrency N: N at once, each with a core of its own for the engine that thinks), from an openings file that this script asks the engine for: the start
position and each of its 21 first goat placements. Every first placement is played once with
each copy of the engine as goats (21 pairs), the start position 29 times with each (29 pairs):
100 games a time, the start position's share 58 of them, spread through the run so that a run
cut short keeps the mix. Records go to OUT/forbid-Tms.txt; running the script again resumes every
series where its records stop (-resume) and plays only the games still missing. While a series
plays, the machine's load average is sampled every 15 s into OUT/load-Tms.txt: a time per move
is only as honest as the cores are free, so every row of the table carries its load.

Then (and with --report alone, from the records as they are) it writes:
  OUT/forbid-selfplay.csv        one row a time: games, the goats' wins from the start position,
                                 from a first placement and in all, plies, terminations, load
  OUT/forbid-selfplay-games.csv  one row a game: time, game, opening, winner, termination, plies
  OUT/forbid-selfplay.md         the table in Markdown (also printed)
  OUT/forbid-selfplay.svg        the goats' score with its 95% Wilson interval against the time

Every rule and move is the engine's and the referee's: the openings come from the engine's
`d` (the start position's OBX and legal moves), the games from the referee's records.

usage: forbid-selfplay.py --tb DIR [--bin DIR] [--out DIR] [--times 25,50,...] [--report]
                          [--min-games N] [--start-pairs N] [--seed S] [--hash MB] [--concurrency N]
Exit status: 0 done, 1 bad usage or a tool failed (one line on standard error), 130 interrupted.
"""

import argparse
import csv
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

DEFAULT_TIMES = [25, 50, 100, 200, 400, 800]
PLACEMENTS = 21


def die(msg):
    print(f"forbid-selfplay: {msg}", file=sys.stderr)
    sys.exit(1)


def engine_lines(engine, commands):
    """Runs the engine on a few protocol lines and returns its output lines."""
    try:
        out = subprocess.run([engine], input="".join(c + "\n" for c in commands) + "quit\n",
                             capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        die(f"cannot run {engine}: {e}")
    return out.stdout.splitlines()


def openings(engine, start_pairs):
    """The openings file's lines: the start position's OBX and the OBX after each first
    placement (from the engine's `d`), the placements spread among the start positions."""
    def obx_and_moves(cmd):
        obx = moves = None
        for line in engine_lines(engine, [cmd, "d"]):
            if line.startswith("OBX: "):
                obx = line[5:].strip()
            elif line.startswith("Legal moves"):
                moves = line.split(":", 1)[1].split()
        if obx is None or moves is None:
            die(f"{engine} printed no OBX or legal moves for '{cmd}'")
        return obx, moves

    start, first = obx_and_moves("position startpos")
    if len(first) != PLACEMENTS:
        die(f"the start position has {len(first)} first moves, not {PLACEMENTS}")
    placed = [(m, obx_and_moves(f"position startpos moves {m}")[0]) for m in first]
    lines, p, s = [], 0, 0
    total = len(placed) + start_pairs
    for k in range(total):
        # Bresenham: the k-th round is a placement when the placements' share steps up.
        if (k + 1) * len(placed) // total > p:
            lines.append(f"{placed[p][1]} ; first placement {placed[p][0]}")
            p += 1
        else:
            lines.append(f"{start} ; the start position")
            s += 1
    return start, lines


class LoadSampler(threading.Thread):
    """Appends 'unix-time load1 load5 load15' to a file every period seconds."""

    def __init__(self, path, period=15.0):
        super().__init__(daemon=True)
        self.path, self.period, self.stop = path, period, threading.Event()

    def sample(self):
        try:
            with open("/proc/loadavg", encoding="ascii") as f:
                la = f.read().split()[:3]
            with open(self.path, "a", encoding="ascii") as f:
                f.write(f"{int(time.time())} {' '.join(la)}\n")
        except OSError:
            pass

    def run(self):
        while True:
            self.sample()
            if self.stop.wait(self.period):
                self.sample()
                return


def play(args, ms, book):
    records = os.path.join(args.out, f"forbid-{ms}ms.txt")
    cmd = [os.path.join(args.bin, "baghchal-referee"),
           "-engine", f"cmd={os.path.join(args.bin, 'baghchal')}", "name=a",
           "-engine", f"cmd={os.path.join(args.bin, 'baghchal')}", "name=b",
           "-each", f"movetime={ms}", "timemargin=1000", f"option.Hash={args.hash}",
           f"option.TablebasePath={args.tb}",
           "-openings", f"file={book}", "order=sequential",
           "-repetition", "forbid", "-seed", str(args.seed), "-rounds", str(PLACEMENTS + args.start_pairs),
           "-concurrency", str(args.concurrency), "-records", records,
           # Two engines reading 818 MB of files at once on a loaded machine: minutes, not 10 s.
           "-timeouts", "init=180000", "ready=60000",
           "-json", os.path.join(args.out, f"forbid-{ms}ms.json"), "-progress", "10"]
    if os.path.exists(records):
        cmd.append("-resume")
    # The referee starts its log afresh: one log a run, for the nodes each move searched.
    k = 1
    while os.path.exists(os.path.join(args.out, f"forbid-{ms}ms.log.{k}")):
        k += 1
    cmd += ["-log", os.path.join(args.out, f"forbid-{ms}ms.log.{k}")]
    print(f"forbid-selfplay: {ms} ms a move: {' '.join(cmd)}", flush=True)
    # The games a run plays at once, for the table (a series may be played in several runs).
    with open(os.path.join(args.out, f"concurrency-{ms}ms.txt"), "a", encoding="ascii") as f:
        f.write(f"{int(time.time())} {args.concurrency}\n")
    sampler = LoadSampler(os.path.join(args.out, f"load-{ms}ms.txt"))
    sampler.start()
    try:
        rc = subprocess.run(cmd, check=False).returncode
    finally:
        sampler.stop.set()
        sampler.join()
    if rc == 130 or rc == -signal.SIGINT:
        sys.exit(130)
    if rc != 0:
        die(f"the referee exited with status {rc} at {ms} ms a move")
    try:
        with open(os.path.join(args.out, f"forbid-{ms}ms.json"), encoding="utf-8") as f:
            missing = json.load(f)["games"]["not_played"]
    except (OSError, ValueError, KeyError) as e:
        die(f"cannot read the referee's summary at {ms} ms a move: {e}")
    if missing:
        die(f"{missing} games at {ms} ms a move were not played (their notes in {records} say why): "
            "remove the records file and run again")


def read_games(path):
    """The games of a records file: dicts of their tags."""
    games, tags = [], {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("[") and line.rstrip().endswith("]") and " \"" in line:
                key, val = line[1:].rstrip()[:-1].split(" ", 1)
                tags[key] = val.strip('"')
                if key == "Final":
                    games.append(tags)
                    tags = {}
    return games


def move_stats(out, ms):
    """Nodes searched and ms charged per move, from the referee's logs of a series: the last
    `nodes` an engine reported before each of its `bestmove` notes."""
    nodes, charged, last = [], [], {}
    k = 1
    while os.path.exists(os.path.join(out, f"forbid-{ms}ms.log.{k}")):
        with open(os.path.join(out, f"forbid-{ms}ms.log.{k}"), encoding="utf-8", errors="replace") as f:
            for line in f:
                w = line.split()
                if len(w) < 4:
                    continue
                who = w[1]
                if w[2] == "<" and w[3] == "info" and "nodes" in w[3:-1]:
                    last[who] = int(w[w.index("nodes", 3) + 1])
                elif w[2] == "=" and w[3] == "bestmove" and "charged" in w:
                    charged.append(float(w[w.index("charged") + 1]))
                    if who in last:
                        nodes.append(last.pop(who))
        k += 1
    if not nodes:
        return None
    return (statistics.median(nodes), statistics.median(charged), len(nodes))


def wilson(k, n, z=1.959964):
    if n == 0:
        return (0.0, 0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (p, max(0.0, c - h), min(1.0, c + h))


def load_stats(path):
    try:
        with open(path, encoding="ascii") as f:
            vals = [float(line.split()[1]) for line in f if len(line.split()) >= 2]
    except OSError:
        return None
    if not vals:
        return None
    return (statistics.mean(vals), min(vals), max(vals))


def concurrency_used(out, ms):
    """The games at once of the runs of a series, in the order first used (1 when the series
    has no such record: the script played one at a time before it kept them)."""
    used = []
    try:
        with open(os.path.join(out, f"concurrency-{ms}ms.txt"), encoding="ascii") as f:
            for line in f:
                w = line.split()
                if len(w) == 2 and w[1].isdigit() and int(w[1]) not in used:
                    used.append(int(w[1]))
    except OSError:
        pass
    return used or [1]


def summarise(args, start):
    rows, per_game = [], []
    times = sorted({int(n[len("forbid-"):-len("ms.txt")]) for n in os.listdir(args.out)
                    if n.startswith("forbid-") and n.endswith("ms.txt")})
    for ms in times:
        games = read_games(os.path.join(args.out, f"forbid-{ms}ms.txt"))
        if not games:
            continue
        r = {"ms": ms, "games": len(games)}
        for g in games:
            where = "start" if g.get("Opening") == start else "placement"
            per_game.append({"ms": ms, "game": g.get("Game"), "opening": where, "obx": g.get("Opening"),
                             "winner": g.get("Result"), "termination": g.get("Termination"),
                             "plies": g.get("Plies")})
        for where in ("start", "placement", "all"):
            sel = [g for g in games if where == "all" or (g.get("Opening") == start) == (where == "start")]
            r[f"{where}_games"] = len(sel)
            r[f"{where}_goats"] = sum(g.get("Result") == "goats" for g in sel)
            r[f"{where}_other"] = sum(g.get("Result") not in ("goats", "tigers") for g in sel)
        plies = [int(g.get("Plies", 0)) for g in games]
        r["plies_median"] = statistics.median(plies)
        r["plies_min"], r["plies_max"] = min(plies), max(plies)
        terms = {}
        for g in games:
            terms[g.get("Termination")] = terms.get(g.get("Termination"), 0) + 1
        r["terminations"] = "; ".join(f"{k} {v}" for k, v in sorted(terms.items(), key=lambda kv: -kv[1]))
        la = load_stats(os.path.join(args.out, f"load-{ms}ms.txt"))
        r["load_mean"], r["load_min"], r["load_max"] = (f"{x:.2f}" for x in la) if la else ("", "", "")
        r["at_once"] = ", ".join(str(c) for c in concurrency_used(args.out, ms))
        mv = move_stats(args.out, ms)
        r["nodes_median"], r["charged_median"], r["moves_logged"] = (
            (f"{mv[0]:.0f}", f"{mv[1]:.1f}", mv[2]) if mv else ("", "", 0))
        rows.append(r)
    return rows, per_game


def fmt_score(k, n):
    p, lo, hi = wilson(k, n)
    return f"{k} / {n}: {100 * p:.0f}% ({100 * lo:.0f}-{100 * hi:.0f}%)" if n else "-"


def markdown(rows):
    out = ["| ms a move | games | goats' score from the start (95%) | from a first placement (95%) |"
           " all games (95%) | plies (median, range) | load average (mean, range) |"
           " a move: nodes, ms charged (medians; moves logged) | games at once |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        load = f"{r['load_mean']} ({r['load_min']}-{r['load_max']})" if r["load_mean"] else "-"
        out.append(f"| {r['ms']} | {r['games']} | {fmt_score(r['start_goats'], r['start_games'])} | "
                   f"{fmt_score(r['placement_goats'], r['placement_games'])} | "
                   f"{fmt_score(r['all_goats'], r['all_games'])} | "
                   f"{r['plies_median']:g} ({r['plies_min']}-{r['plies_max']}) | {load} | "
                   + (f"{int(r['nodes_median']):,}, {float(r['charged_median']):.0f} ms ({r['moves_logged']:,})"
                      if r["moves_logged"] else "-") + f" | {r['at_once']} |")
    return "\n".join(out) + "\n"


def svg(rows):
    """The goats' score (all games, from the start, from a first placement) with 95% Wilson intervals
    against the time per move on a doubling axis."""
    w, h, left, right, top, bottom = 520, 320, 56, 16, 28, 44
    pw, ph = w - left - right, h - top - bottom
    times = [r["ms"] for r in rows] or DEFAULT_TIMES
    lo_t, hi_t = min(min(times), 25), max(max(times), 800)
    l0, l1 = math.log2(lo_t) - 0.3, math.log2(hi_t) + 0.3
    ymax = 0.6

    def x(ms, dx=0.0):
        return left + (math.log2(ms) - l0) / (l1 - l0) * pw + dx

    def y(p):
        return top + (1 - p / ymax) * ph

    e = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
         'font-family="sans-serif" font-size="11">' % (w, h, w, h),
         '<rect width="100%" height="100%" fill="white"/>',
         f'<text x="{left}" y="16" font-size="12">Goats\' score in self-play under forbid, full solution loaded'
         ' (95% Wilson intervals)</text>']
    for k in range(0, 7):
        p = k / 10
        e.append(f'<line x1="{left}" y1="{y(p):.1f}" x2="{w - right}" y2="{y(p):.1f}" stroke="#ddd"/>')
        e.append(f'<text x="{left - 6}" y="{y(p) + 4:.1f}" text-anchor="end">{k * 10}%</text>')
    t = lo_t
    while t <= hi_t:
        e.append(f'<line x1="{x(t):.1f}" y1="{top + ph}" x2="{x(t):.1f}" y2="{top + ph + 4}" stroke="black"/>')
        e.append(f'<text x="{x(t):.1f}" y="{top + ph + 16}" text-anchor="middle">{t}</text>')
        t *= 2
    e.append(f'<line x1="{left}" y1="{top + ph}" x2="{w - right}" y2="{top + ph}" stroke="black"/>')
    e.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="black"/>')
    e.append(f'<text x="{left + pw / 2}" y="{h - 8}" text-anchor="middle">ms a move (doubling)</text>')
    series = [("all", "#1f5fa8", 0, "all games"), ("start", "#c0392b", -6, "from the start position"),
              ("placement", "#2e8b57", 6, "from a first placement")]
    for key, colour, dx, label in series:
        pts = []
        for r in rows:
            n, k = r[f"{key}_games"], r[f"{key}_goats"]
            if not n:
                continue
            p, lo, hi = wilson(k, n)
            cx = x(r["ms"], dx)
            e.append(f'<line x1="{cx:.1f}" y1="{y(min(hi, ymax)):.1f}" x2="{cx:.1f}" y2="{y(lo):.1f}" '
                     f'stroke="{colour}"/>')
            for yy in (min(hi, ymax), lo):
                e.append(f'<line x1="{cx - 3:.1f}" y1="{y(yy):.1f}" x2="{cx + 3:.1f}" y2="{y(yy):.1f}" '
                         f'stroke="{colour}"/>')
            e.append(f'<circle cx="{cx:.1f}" cy="{y(p):.1f}" r="3.5" fill="{colour}">'
                     f'<title>{r["ms"]} ms, {label}: {k} of {n} ({100 * p:.0f}%, 95%: {100 * lo:.0f}-'
                     f'{100 * hi:.0f}%)</title></circle>')
            pts.append(f"{cx:.1f},{y(p):.1f}")
        if len(pts) > 1:
            e.append(f'<polyline points="{" ".join(pts)}" fill="none" stroke="{colour}" stroke-dasharray="3,3"/>')
    for r in rows:
        e.append(f'<text x="{x(r["ms"]):.1f}" y="{top + ph - 5}" text-anchor="middle" font-size="9" fill="#555">'
                 f'{r["games"]} games</text>')
    for i, (key, colour, _, label) in enumerate(series):
        ly = top + 10 + 16 * i
        e.append(f'<circle cx="{w - right - 150}" cy="{ly}" r="3.5" fill="{colour}"/>')
        e.append(f'<text x="{w - right - 142}" y="{ly + 4}">{label}</text>')
    e.append("</svg>")
    return "\n".join(e) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tb", help="the folder of the full solution (baghchal.tb and baghchal-placement.tb)")
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "bin"))
    ap.add_argument("--out", default="forbid-selfplay")
    ap.add_argument("--times", default=",".join(map(str, DEFAULT_TIMES)))
    ap.add_argument("--start-pairs", type=int, default=29)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hash", type=int, default=16)
    ap.add_argument("--concurrency", type=int, default=1,
                    help="games at once (each needs a core of its own for the engine thinking)")
    ap.add_argument("--report", action="store_true", help="only write the table and plot from the records")
    ap.add_argument("--min-games", type=int, default=1, help="leave out of the outputs a series with fewer games")
    args = ap.parse_args()
    try:
        times = [int(t) for t in args.times.split(",")]
    except ValueError:
        die(f"--times is a list of ms like 25,50,100, not '{args.times}'")
    if any(t <= 0 for t in times) or args.start_pairs < 0:
        die("times and --start-pairs must be positive")
    if not 1 <= args.concurrency <= 64:
        die(f"--concurrency must be 1..64, not {args.concurrency}")
    args.bin, args.out = os.path.abspath(args.bin), os.path.abspath(args.out)
    engine = os.path.join(args.bin, "baghchal")
    for tool in (engine, os.path.join(args.bin, "baghchal-referee")):
        if not os.access(tool, os.X_OK):
            die(f"no {tool} (build the project, or give --bin)")
    if not args.report:
        if not args.tb or not os.path.isfile(os.path.join(args.tb, "baghchal-placement.tb")):
            die("--tb names no folder with baghchal.tb and baghchal-placement.tb")
        args.tb = os.path.abspath(args.tb)
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        die(f"cannot make {args.out}: {e}")
    start, lines = openings(engine, args.start_pairs)
    if not args.report:
        book = os.path.join(args.out, "openings.obx")
        text = "".join(line + "\n" for line in lines)
        try:
            old = open(book, encoding="utf-8").read() if os.path.exists(book) else None
            if old is None:
                with open(book, "w", encoding="utf-8") as f:
                    f.write(text)
        except OSError as e:
            die(f"cannot write {book}: {e}")
        if old is not None and old != text:
            die(f"{book} holds other openings: a series cannot be resumed with another book")
        for ms in times:
            play(args, ms, book)
    rows, per_game = summarise(args, start)
    rows = [r for r in rows if r["games"] >= args.min_games]
    per_game = [g for g in per_game if any(r["ms"] == g["ms"] for r in rows)]
    fields = ["ms", "games", "start_games", "start_goats", "placement_games", "placement_goats", "all_games",
              "all_goats", "all_other", "plies_median", "plies_min", "plies_max", "load_mean", "load_min",
              "load_max", "nodes_median", "charged_median", "moves_logged", "at_once", "terminations"]
    with open(os.path.join(args.out, "forbid-selfplay.csv"), "w", newline="", encoding="utf-8") as f:
        wr = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        wr.writeheader()
        wr.writerows(rows)
    with open(os.path.join(args.out, "forbid-selfplay-games.csv"), "w", newline="", encoding="utf-8") as f:
        wr = csv.DictWriter(f, fieldnames=["ms", "game", "opening", "obx", "winner", "termination", "plies"])
        wr.writeheader()
        wr.writerows(per_game)
    md = markdown(rows)
    with open(os.path.join(args.out, "forbid-selfplay.md"), "w", encoding="utf-8") as f:
        f.write(md)
    with open(os.path.join(args.out, "forbid-selfplay.svg"), "w", encoding="utf-8") as f:
        f.write(svg(rows))
    print(md, end="")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
