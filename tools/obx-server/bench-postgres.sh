#!/usr/bin/env bash
# The room's load test (baghchal-loadtest) against baghchal-servers on one PostgreSQL: a
# PostgreSQL of its own in a temporary folder (tests/support/postgres.sh, fsync on: a real
# database's cost), SERVERS servers on it (the players spread over them, a game's two on
# different servers when there are several), the load test's figures, then the database's own
# load over the run: its processes' CPU time and its transactions (pg_stat_database).
# Usage: tools/obx-server/bench-postgres.sh BUILD_DIR [GAMES (default 1000)] [SECONDS (default 30)]
#        [SERVERS (default 1)] [--durable]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: bench-postgres.sh BUILD_DIR [GAMES] [SECONDS] [--durable]}" && pwd)
games=${2:-1000}
seconds=${3:-30}
servers=${4:-1}
durable=${5:-}

if [ -z "${BAGHCHAL_BENCH_INNER:-}" ]; then
  export BAGHCHAL_BENCH_INNER=1
  BAGHCHAL_POSTGRES_FSYNC=on exec bash "$root/tests/support/postgres.sh" bash "$0" "$@"
fi

base=$BAGHCHAL_TEST_POSTGRES
psql -qX "$base" -c "CREATE DATABASE load" >/dev/null
url=${base/\/postgres\?//load?}
ports="" pids=""
for k in $(seq "$servers"); do
  port=$((18094 + k))
  "$build/bin/baghchal-server" --port $port --database "$url" $durable --max-connections 5000 --max-per-client 64 \
    >/tmp/bench-postgres-server$k.log 2>&1 &
  pids="$pids${pids:+,}$!" ports="$ports${ports:+,}$port"
  for _ in $(seq 50); do
    grep -q listening /tmp/bench-postgres-server$k.log && break
    sleep 0.1
  done
done
trap 'kill ${pids//,/ } 2>/dev/null; wait 2>/dev/null' EXIT

# The database's processes: the postmaster (the one whose data folder is this cluster's) and
# its children. CPU time in clock ticks, from /proc.
dir=${base#*host=}
dir=${dir%%&*}
postmaster=$(pgrep -o -f "postgres -D $dir/data")
cpu() {
  local t=0
  for p in $postmaster $(pgrep -P "$postmaster"); do
    [ -r /proc/$p/stat ] && t=$((t + $(awk '{print $14 + $15}' /proc/$p/stat)))
  done
  echo $t
}
commits() { psql -qXtA "$url" -c "SELECT xact_commit FROM pg_stat_database WHERE datname = 'load'"; }

c0=$(cpu); x0=$(commits); t0=$(date +%s.%N)
"$build/bin/baghchal-loadtest" --port "$ports" --pid "$pids" --games "$games" --seconds "$seconds"
c1=$(cpu); x1=$(commits); t1=$(date +%s.%N)
awk -v c=$((c1 - c0)) -v x=$((x1 - x0)) -v t0="$t0" -v t1="$t1" -v hz="$(getconf CLK_TCK)" 'BEGIN {
  s = t1 - t0
  printf "PostgreSQL over the run (%.1f s, the games set up included): %.0f%% of one core, %.0f transactions a second\n",
         s, 100 * c / hz / s, x / s }'
