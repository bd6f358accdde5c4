#!/usr/bin/env bash
# The house's bots: our engine sitting in a server's lobby at three strengths, each with a seek
# of its own, so that a person always has an opponent. Each bot account is made on the first
# start (its token kept in DIR) and signed in with it on the next ones. The engine loads the
# databases from the standard folder when they are there (PROTOCOL.md), so the strongest bot
# plays perfectly under the draw rule. Stops the bots on SIGINT or SIGTERM.
# Usage: tools/bot/house-bots.sh URL DIR [BIN]   (BIN: the folder of baghchal and baghchal-bot,
#        default build/bin)
set -euo pipefail
url=${1:?usage: house-bots.sh URL DIR [BIN]}
dir=${2:?usage: house-bots.sh URL DIR [BIN]}
bin=${3:-build/bin}
for p in baghchal baghchal-bot; do
  [ -x "$bin/$p" ] || { echo "house-bots.sh: no $bin/$p: build the project first (or give BIN)" >&2; exit 1; }
done
mkdir -p "$dir"
pids=()
stop() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; }
trap 'stop; exit 0' INT TERM
# name, Skill Level, seek, the bot's own limits
while read -r name level seek max; do
  "$bin/baghchal-bot" --server "$url" --register "$name" --token-file "$dir/$name.token" \
    --engine "$bin/baghchal" --option "Skill Level=$level" --option Hash=16 \
    --seek "$seek" --max-games "$max" >"$dir/$name.log" 2>&1 &
  pids+=($!)
done <<'BOTS'
HouseBot5 5 300+3 2
HouseBot12 12 180+2 2
HouseBot20 20 600+5 2
BOTS
echo "house-bots.sh: ${#pids[@]} bots in the lobby of $url (logs in $dir)"
wait
