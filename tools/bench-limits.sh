#!/usr/bin/env bash
# Whether the limits of go hold with many threads: for `go movetime 100`, a 60 ms clock and
# `go nodes 5000`, the time from go to bestmove and the nodes of the last info line, each run
# a few times with the Threads value given (more threads than processors included).
# Usage: tools/bench-limits.sh [path/to/baghchal] [threads (default 256)] [runs (default 3)]
set -euo pipefail
bin=${1:-"$(dirname "$0")/../build/bin/baghchal"}
threads=${2:-256}
runs=${3:-3}
[ -x "$bin" ] || { echo "bench-limits.sh: no executable at $bin" >&2; exit 2; }

now_us() { local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t)); }
coproc ENG { exec "$bin"; }
trap 'kill "${ENG_PID:-}" 2>/dev/null || true' EXIT
printf 'setoption name Threads value %s\nposition startpos moves C3 A1B2 D4 E5D5\nisready\n' "$threads" >&"${ENG[1]}"
while IFS= read -r -t 60 line <&"${ENG[0]}"; do [[ $line == readyok ]] && break; done
echo "Threads $threads, $(nproc) processors"
for cmd in "go movetime 100" "go gtime 60 ttime 60" "go nodes 5000" "go nodes 100000"; do
  times=() nodes=()
  for ((i = 0; i < runs; i++)); do
    t0=$(now_us)
    printf '%s\n' "$cmd" >&"${ENG[1]}"
    last=""
    while IFS= read -r -t 60 line <&"${ENG[0]}"; do
      [[ $line == "info depth"* ]] && last=$line
      [[ $line == bestmove* ]] && break
    done
    times+=($((($(now_us) - t0) / 1000)))
    nodes+=($(awk '{ for (i = 1; i < NF; i++) if ($i == "nodes") print $(i + 1) }' <<<"$last"))
  done
  printf '%-22s answered after %s ms; nodes %s\n' "$cmd" "${times[*]}" "${nodes[*]}"
done
printf 'quit\n' >&"${ENG[1]}"
wait "$ENG_PID" 2>/dev/null || true
