#!/usr/bin/env bash
# Time forfeits of the real engine against itself at a short clock, at concurrency 1 and 2:
# how often a move's answer misses the referee's clock (random 6-ply openings, a fixed seed),
# and how many moves were charged more than 1 ms and more than 5 ms less than the engine's
# own reported search time (from the protocol log; the engine's whole-millisecond times may
# overstate by under 1 ms, and the clock starts before the write of go, so both should be 0).
# Usage: tools/referee/forfeits.sh [bin-dir (default build/bin)] [games (default 200)] [tc (default 1+0.01)]
#        [extra referee options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-"$here/../../build/bin"}
games=${2:-200}
tc=${3:-1+0.01}
shift $(( $# > 3 ? 3 : $# ))
referee="$bin/baghchal-referee"
engine="$bin/baghchal"
for f in "$referee" "$engine"; do
  [ -x "$f" ] || { echo "forfeits.sh: $f not found (build first, or give the bin directory)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "tc=$tc, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
printf '%-12s %6s %9s %8s %9s %7s %10s %10s\n' concurrency games forfeits percent seconds moves "under>1ms" "under>5ms"
for c in 1 2; do
  "$referee" -engine cmd="$engine" name=a -engine cmd="$engine" name=b -each tc="$tc" option.Hash=16 \
    -openings random=6 -seed 1 -games "$games" -concurrency "$c" -progress 0 \
    -json "$tmp/summary.json" -log "$tmp/log.txt" "$@" >/dev/null
  counted=$(grep -o '"counted": [0-9]*' "$tmp/summary.json" | grep -o '[0-9]*$')
  forfeits=$(grep -o '"time_forfeit": [0-9]*' "$tmp/summary.json" | grep -o '[0-9]*$')
  seconds=$(grep -o '"seconds": [0-9.]*' "$tmp/summary.json" | grep -o '[0-9.]*$')
  read -r moves under1 under5 < <(awk '/ = bestmove .* charged .* engine time [0-9]+ ms$/ {
      n++; d = $(NF - 1) - $(NF - 5); if (d > 1) u1++; if (d > 5) u5++ } END { print n + 0, u1 + 0, u5 + 0 }' \
    "$tmp/log.txt")
  awk -v c="$c" -v g="$counted" -v f="$forfeits" -v s="$seconds" -v m="$moves" -v u1="$under1" -v u5="$under5" \
    'BEGIN { printf "%-12d %6d %9d %7.1f%% %9.1f %7d %10d %10d\n", c, g, f, 100 * f / g, s, m, u1, u5 }'
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
