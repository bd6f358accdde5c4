#!/usr/bin/env bash
# Load benchmark of baghchal-server with wrk: requests per second and latency percentiles
# for /obx at depth 4 and at movetime 50, with 2 workers, at 2 and 8 open connections.
# Usage: tools/obx-server/bench.sh [server binary] [seconds per run]
# Needs wrk (Debian: wrk). All traffic goes to 127.0.0.1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
server=${1:-$here/../../build/bin/baghchal-server}
seconds=${2:-10}
command -v wrk >/dev/null || { echo "bench.sh needs wrk (apt-get install wrk)" >&2; exit 1; }
[ -x "$server" ] || { echo "no server binary at $server" >&2; exit 1; }

out=$(mktemp)
"$server" --port 0 --workers 2 --threads 1 --hash 16 --max-movetime 1000 --max-queue 1024 \
  --queue-timeout 60000 --max-connections 512 >"$out" 2>/dev/null &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$out"' EXIT
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$out")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "the server did not start" >&2; exit 1; }

start='TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #'
mid='TGGGT/GXXXG/GXXXG/GXXXG/TGGGT t @8 c0'
printf '%-34s %5s %10s %9s %9s %9s %8s\n' "load (2 workers)" conns "req/s" "p50 ms" "p90 ms" "p99 ms" "non-200"
run() { # label, body, connections
  local log
  log=$(BODY="$2" wrk -t2 -c"$3" -d"${seconds}s" --latency -s "$here/bench.lua" "http://127.0.0.1:$port/obx" 2>&1)
  local rps p50 p90 p99 bad
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$log")
  pct() { awk -v p="$1" '$1 == p {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v*=1000}; printf "%.1f", v}' <<<"$log"; }
  p50=$(pct 50%); p90=$(pct 90%); p99=$(pct 99%)
  bad=$(awk '/Non-2xx/ {print $NF}' <<<"$log"); bad=${bad:-0}
  printf '%-34s %5s %10s %9s %9s %9s %8s\n' "$1" "$3" "$rps" "$p50" "$p90" "$p99" "$bad"
}
for c in 2 8; do
  run "depth 4, start position" "{\"obx\": \"$start\", \"depth\": 4}" "$c"
  run "depth 4, middle game" "{\"obx\": \"$mid\", \"depth\": 4}" "$c"
  run "movetime 50, start position" "{\"obx\": \"$start\", \"movetime\": 50}" "$c"
done
