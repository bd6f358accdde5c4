#!/usr/bin/env bash
# Latency of `isready` (until `readyok`) and of `stop` (until `bestmove`) while the engine
# searches, measured over many repetitions; prints min / median / max in ms against the 5 ms
# target. Exits 1 when a median misses the target.
# Usage: tools/latency.sh [path/to/baghchal] [repetitions (default 200)] [threads (default 1)]
set -euo pipefail
bin=${1:-"$(dirname "$0")/../build/bin/baghchal"}
reps=${2:-200}
threads=${3:-1}
target_us=5000
[ -x "$bin" ] || { echo "latency.sh: no executable at $bin" >&2; exit 2; }

# Microseconds on a clock with microsecond resolution: bash's own EPOCHREALTIME (no process
# started per reading), or date +%s%N on an older bash.
now_us() {
  if [ -n "${EPOCHREALTIME:-}" ]; then
    local t=${EPOCHREALTIME/[.,]/}
    echo $((10#$t))
  else
    local t
    t=$(date +%s%N)
    echo $((t / 1000))
  fi
}

coproc ENG { exec "$bin"; }
trap 'kill "$ENG_PID" 2>/dev/null || true' EXIT

send() { printf '%s\n' "$1" >&"${ENG[1]}"; }
# Reads engine lines until one starts with $1; fails after 10 s.
wait_for() {
  local line
  while IFS= read -r -t 10 line <&"${ENG[0]}"; do
    [[ $line == "$1"* ]] && return 0
  done
  echo "latency.sh: no '$1' from the engine" >&2
  exit 2
}

send uci
wait_for uciok
send "setoption name Threads value $threads"
send "position startpos moves C3 A1B2 D4"
send isready
wait_for readyok

ready=()
stop=()
for ((i = 0; i < reps; i++)); do
  send "go infinite"
  wait_for "info depth"
  # isready, twice per search: once early, once after the search has run a while.
  for k in 1 2; do
    t0=$(now_us)
    send isready
    wait_for readyok
    t1=$(now_us)
    ready+=($((t1 - t0)))
  done
  t0=$(now_us)
  send stop
  wait_for bestmove
  t1=$(now_us)
  stop+=($((t1 - t0)))
done
send quit
wait "$ENG_PID" 2>/dev/null || true
trap - EXIT

ms() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
status=0
report() { # name, values...
  local name=$1
  shift
  local sorted
  mapfile -t sorted < <(printf '%s\n' "$@" | sort -n)
  local n=${#sorted[@]}
  local min=${sorted[0]} max=${sorted[n - 1]} med
  if ((n % 2)); then med=${sorted[n / 2]}; else med=$(((sorted[n / 2 - 1] + sorted[n / 2]) / 2)); fi
  local verdict=ok
  ((med <= target_us)) || { verdict="MEDIAN ABOVE TARGET"; status=1; }
  ((max <= target_us)) || [ "$verdict" != ok ] || verdict="ok (max above target)"
  printf '%-8s %6d %10s %10s %10s   %s\n' "$name" "$n" "$(ms "$min")" "$(ms "$med")" "$(ms "$max")" "$verdict"
}
printf '%-8s %6s %10s %10s %10s   target %s ms, %d thread(s)\n' what n min_ms median_ms max_ms "$(ms $target_us)" "$threads"
report isready "${ready[@]}"
report stop "${stop[@]}"
exit $status
