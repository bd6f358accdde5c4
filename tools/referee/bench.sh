#!/usr/bin/env bash
# Referee overhead: complete depth-1 games per second between two baghchal processes, at
# concurrency 1 and 2 (random 4-ply openings, a fixed seed, the engines' default options).
# Usage: tools/referee/bench.sh [bin-dir (default build/bin)] [games (default 400)] [extra referee options...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-"$here/../../build/bin"}
games=${2:-400}
shift $(( $# > 2 ? 2 : $# ))
referee="$bin/baghchal-referee"
engine="$bin/baghchal"
for f in "$referee" "$engine"; do
  [ -x "$f" ] || { echo "bench.sh: $f not found (build first, or give the bin directory)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-12s %8s %10s %10s %8s\n' concurrency games seconds games/s plies/s
declare -A rate
for c in 1 2; do
  "$referee" -engine cmd="$engine" name=a -engine cmd="$engine" name=b -each depth=1 \
    -openings random=4 -seed 1 -games "$games" -concurrency "$c" -progress 0 \
    -records "$tmp/records.txt" -json "$tmp/summary.json" "$@" >/dev/null
  counted=$(grep -o '"counted": [0-9]*' "$tmp/summary.json" | grep -o '[0-9]*$')
  seconds=$(grep -o '"seconds": [0-9.]*' "$tmp/summary.json" | grep -o '[0-9.]*$')
  plies=$(grep -o '^\[Plies "[0-9]*"\]' "$tmp/records.txt" | grep -o '[0-9]*' | awk '{s += $1} END {print s}')
  rate[$c]=$(awk -v g="$counted" -v s="$seconds" 'BEGIN { printf "%.1f", g / s }')
  awk -v c="$c" -v g="$counted" -v s="$seconds" -v p="$plies" \
    'BEGIN { printf "%-12d %8d %10.3f %10.1f %8.0f\n", c, g, s, g / s, p / s }'
done
awk -v a="${rate[1]}" -v b="${rate[2]}" 'BEGIN { printf "speedup of concurrency 2: %.2fx\n", b / a }'
