#!/usr/bin/env bash
# Perft speed from the start position: leaves per second at depths 6, 7 and 8 (one core).
# Usage: tools/bench-perft.sh [path/to/baghchal]
set -euo pipefail
bin=${1:-"$(dirname "$0")/../build/bin/baghchal"}
printf '%-6s %14s %10s %14s\n' depth leaves seconds leaves/s
for depth in 6 7 8; do
  start=$(date +%s.%N)
  leaves=$("$bin" go perft "$depth" | awk '/^Nodes searched/{print $3}')
  end=$(date +%s.%N)
  awk -v d="$depth" -v n="$leaves" -v s="$start" -v e="$end" \
    'BEGIN { t = e - s; printf "%-6d %14.0f %10.3f %14.0f\n", d, n, t, n / t }'
done
