#!/usr/bin/env bash
# How long the engine takes a long game: for a `position` line of 30,000 plies and one of
# 1 MB (legal games from tools/longgame), the time from sending it (with an isready behind
# it) to readyok, then the time to readyok during a `go infinite` on that game (the search
# must not take the game again on the reading thread). Best and median of the runs, in ms.
# Usage: tools/bench-position.sh [build/bin directory] [runs (default 5)]
set -euo pipefail
bin=${1:-"$(dirname "$0")/../build/bin"}
runs=${2:-5}
[ -x "$bin/baghchal" ] && [ -x "$bin/longgame" ] || { echo "bench-position.sh: no baghchal or longgame in $bin" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/longgame" plies 30000 >"$tmp/plies" 2>/dev/null
"$bin/longgame" bytes 1000000 >"$tmp/bytes" 2>/dev/null

now_us() { local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t)); }

coproc ENG { exec "$bin/baghchal"; }
wait_for() { # prefix
  local line
  while IFS= read -r -t 60 line <&"${ENG[0]}"; do [[ $line == "$1"* ]] && return 0; done
  echo "bench-position.sh: no '$1' from the engine" >&2; exit 2
}
stats() { sort -n | awk '{ v[NR] = $1 } END { printf "best %.1f ms, median %.1f ms", v[1] / 1000, v[int((NR + 1) / 2)] / 1000 }'; }

for name in plies bytes; do
  plies=$(awk '{ print NF - 3 }' "$tmp/$name")
  size=$(wc -c <"$tmp/$name")
  take=() ready=()
  for ((i = 0; i < runs; i++)); do
    t0=$(now_us)
    { cat "$tmp/$name"; printf 'isready\n'; } >&"${ENG[1]}"
    wait_for readyok
    take+=($(($(now_us) - t0)))
    printf 'go infinite\n' >&"${ENG[1]}"
    wait_for "info depth"
    t0=$(now_us)
    printf 'isready\n' >&"${ENG[1]}"
    wait_for readyok
    ready+=($(($(now_us) - t0)))
    printf 'stop\n' >&"${ENG[1]}"
    wait_for bestmove
  done
  printf '%-6s %7d plies, %8d bytes: position + isready %s; isready during go infinite %s\n' "$name" "$plies" "$size" \
    "$(printf '%s\n' "${take[@]}" | stats)" "$(printf '%s\n' "${ready[@]}" | stats)"
done
printf 'quit\n' >&"${ENG[1]}"
wait "$ENG_PID" 2>/dev/null || true
