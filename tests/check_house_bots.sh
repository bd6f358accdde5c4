#!/usr/bin/env bash
# tools/bot/house-bots.sh against a real server: the three house bots sign up, each keeps a
# seek in the lobby under its bot account, and a second start signs in with the kept tokens
# (no new account); stopped, they take their seeks back.
set -euo pipefail
src=$1 build=$2
bin=$build/bin
[ -x "$bin/baghchal-server" ] && [ -x "$bin/baghchal-bot" ] || { echo "skipped: needs baghchal-server and baghchal-bot"; exit 0; }
tmp=$(mktemp -d)
server_pid=
house_pid=
cleanup() {
  [ -n "$house_pid" ] && kill "$house_pid" 2>/dev/null || true
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
"$bin/baghchal-server" --port 0 --database "$tmp/room.sqlite" --tablebase '<empty>' >"$tmp/server.out" 2>&1 &
server_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$tmp/server.out" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\)\/.*/\1/p' "$tmp/server.out")
[ -n "$port" ] || { echo "FAIL: the server did not start: $(cat "$tmp/server.out")"; exit 1; }
url=http://127.0.0.1:$port

# The lobby's seeks as "name kind clock" lines, sorted.
seeks() {
  python3 - "$url" <<'PY'
import json, sys, urllib.request
lobby = json.load(urllib.request.urlopen(sys.argv[1] + "/api/lobby"))
for s in lobby["seeks"]:
    c = s["clock"]
    clock = "%d+%d" % (c["initial"] // 1000, c["increment"] // 1000) if c else "none"
    print(s["from"]["name"], s["from"]["kind"], clock)
PY
}
want=$'HouseBot12 bot 180+2\nHouseBot20 bot 600+5\nHouseBot5 bot 300+3'
wait_for() { # what, expected lines
  for _ in $(seq 150); do [ "$(seeks | sort)" = "$2" ] && return 0; sleep 0.2; done
  echo "FAIL: $1: the lobby's seeks are"; seeks; exit 1
}
for start in first second; do
  LC_ALL=C "$src/tools/bot/house-bots.sh" "$url" "$tmp/house" "$bin" >"$tmp/house.out" 2>&1 &
  house_pid=$!
  wait_for "$start start" "$want"
  kill "$house_pid"; wait "$house_pid" 2>/dev/null || true; house_pid=
  wait_for "after the $start stop" ""
done
# One account each, made at the first start only.
n=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from players where kind=2').fetchone()[0])" "$tmp/room.sqlite")
[ "$n" = 3 ] || { echo "FAIL: $n bot accounts, not 3"; exit 1; }
echo "house bots: three seeks from three bot accounts, taken back when stopped, twice"
