#!/usr/bin/env bash
# Search speed: the `bench` node count and nodes/second, then the time to depth 12 from the
# start position and from a movement-phase position of the bench set (one thread, fresh table).
# Usage: tools/bench-search.sh [path/to/baghchal] [depth (default 12)]
set -euo pipefail
bin=${1:-"$(dirname "$0")/../build/bin/baghchal"}
depth=${2:-12}
[ -x "$bin" ] || { echo "bench-search.sh: no executable at $bin" >&2; exit 2; }

"$bin" bench | awk '
  /^Nodes searched:/ { nodes = $3 }
  /^Nodes\/second:/  { nps = $2 }
  /^Total time/      { ms = $4 }
  END { printf "bench (default depth): %s nodes, %s ms, %s nodes/s\nBench: %s\n", nodes, ms, nps, nodes }'

# The engine keeps reading while it searches and quits at end of input, so the search runs
# behind a coprocess whose input stays open until the bestmove.
to_depth() { # name, position command
  coproc ENG { exec "$bin"; }
  printf '%s\n' "ucinewgame" "$2" "go depth $depth" >&"${ENG[1]}"
  local line last=""
  while IFS= read -r -t 600 line <&"${ENG[0]}"; do
    [[ $line == "info depth $depth "* ]] && last=$line
    [[ $line == bestmove* ]] && break
  done
  printf 'quit\n' >&"${ENG[1]}"
  wait "$ENG_PID" 2>/dev/null || true
  [ -n "$last" ] || { echo "bench-search.sh: no depth $depth line for $1" >&2; exit 2; }
  awk -v name="$1" -v d="$depth" '{
      for (i = 1; i < NF; i++) { if ($i == "time") t = $(i + 1); if ($i == "nodes") n = $(i + 1); if ($i == "nps") s = $(i + 1) }
      printf "%-16s depth %s in %6d ms, %10d nodes, %9d nodes/s\n", name, d, t, n, s }' <<<"$last"
}
to_depth "start" "position startpos"
to_depth "mid-movement" "position obx GGGGG/GXXTG/GTXGG/GXTGG/GGTGG g @0 c3 mC2D2 #t28"
