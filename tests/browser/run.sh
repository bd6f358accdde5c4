#!/usr/bin/env bash
# The web board in a real browser: starts baghchal-server on a free loopback port, installs
# playwright-core (npm ci, into the work directory) and runs board.test.js, then
# defects.test.js (the defects players found, at 1280x800 and 390x844), in Debian's
# headless Chromium. Fails loudly when node, npm or Chromium is missing.
# Then review.test.js (the game review and learning from mistakes, both sizes).
# Then i18n.test.js (the board in Nepali and English: every key translated, no English left in
# Nepali in many states, the layout, the switch and its memory; both sizes).
# Then a11y.test.js (axe-core's WCAG A/AA rules in many states, both sizes and themes; the keyboard alone).
# Then annot.test.js (premoves, move glyphs and comments, PGN with NAGs and comments, both sizes).
# Then puzzles.test.js (the puzzles: solved, failed, the difficulty filter, the streak after a reload; both sizes).
# Usage: tests/browser/run.sh <baghchal-server binary> <work dir> <longgame binary>
# Environment: CHROMIUM (default /usr/bin/chromium).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
server=${1:?usage: run.sh <baghchal-server> <work dir>}
work=${2:?usage: run.sh <baghchal-server> <work dir>}
longgame=${3:?usage: run.sh <baghchal-server> <work dir> <longgame>}
chromium=${CHROMIUM:-/usr/bin/chromium}

missing=()
command -v node >/dev/null || missing+=("node (Node.js 20 or later)")
command -v npm >/dev/null || missing+=("npm")
[ -x "$chromium" ] || missing+=("$chromium (Debian: chromium)")
if ((${#missing[@]})); then
  echo "FAIL: the browser test needs: ${missing[*]}" >&2
  echo "      install them (apt-get install chromium; Node.js 20+ with its npm) or configure with" >&2
  echo "      -DBAGHCHAL_BROWSER_TEST=OFF to leave this test out" >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "FAIL: playwright-core needs Node.js 20 or later, found $(node --version)" >&2
  exit 1
fi

mkdir -p "$work"
cp "$here/package.json" "$here/package-lock.json" "$here/board.test.js" "$here/defects.test.js" "$here/i18n.test.js" "$here/review.test.js" "$here/a11y.test.js" "$here/annot.test.js" "$here/puzzles.test.js" "$work/"
if ! cmp -s "$here/package-lock.json" "$work/node_modules/.package-lock.json.copy" 2>/dev/null ||
   [ ! -d "$work/node_modules/playwright-core" ]; then
  echo "== npm ci (playwright-core, axe-core) in $work"
  if ! (cd "$work" && npm ci --no-audit --no-fund --loglevel=error); then
    echo "FAIL: npm ci could not install playwright-core" >&2
    exit 1
  fi
  cp "$here/package-lock.json" "$work/node_modules/.package-lock.json.copy"
fi

out="$work/server.out"
: >"$out"
# With a database (BAGHCHAL_TB_DIR, as tools/run-tests.sh sets it) the analysis view is also
# checked on database values.
tb=()
if [ -n "${BAGHCHAL_TB_DIR:-}" ] && [ -r "$BAGHCHAL_TB_DIR/baghchal.tb" ]; then
  tb=(--tablebase "$BAGHCHAL_TB_DIR")
fi
"$server" --port 0 --workers 2 --hash 8 --movetime 100 --max-movetime 3000 "${tb[@]}" >"$out" 2>"$work/server.err" &
pid=$!
cleanup() {
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT

port=""
for _ in $(seq 1 300); do
  port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$out")
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "FAIL: baghchal-server did not start" >&2
  cat "$work/server.err" >&2
  exit 1
fi

# A legal game of 1,500 plies (more than a request once took) for the board to go on with.
long=$("$longgame" plies 1500 forbid 5 2>/dev/null | sed 's/^position startpos moves //')
if [ -z "$long" ]; then
  echo "FAIL: $longgame wrote no game" >&2
  exit 1
fi

status=0
BOARD_LONGGAME="$long" BOARD_URL="http://127.0.0.1:$port/" BOARD_SERVER="$server" BOARD_TB=${#tb[@]} CHROMIUM="$chromium" SHOT_DIR="$work" node "$work/board.test.js" || status=$?
BOARD_URL="http://127.0.0.1:$port/" BOARD_TB=${#tb[@]} CHROMIUM="$chromium" SHOT_DIR="$work" node "$work/defects.test.js" || status=$?
BOARD_URL="http://127.0.0.1:$port/" BOARD_WEB="$here/../../tools/obx-server/web" BOARD_LOCAL_JS="$here/../../wasm/web/local.js" \
  CHROMIUM="$chromium" SHOT_DIR="$work" node "$work/i18n.test.js" || status=$?
BOARD_URL="http://127.0.0.1:$port/" CHROMIUM="$chromium" SHOT_DIR="$work" node "$work/puzzles.test.js" || status=$?
BOARD_LONGGAME="$long" BOARD_URL="http://127.0.0.1:$port/" BOARD_TB=${#tb[@]} CHROMIUM="$chromium" SHOT_DIR="$work" node "$work/review.test.js" || status=$?
BOARD_URL="http://127.0.0.1:$port/" BOARD_TB=${#tb[@]} CHROMIUM="$chromium" SHOT_DIR="$work" node "$work/a11y.test.js" || status=$?
BOARD_URL="http://127.0.0.1:$port/" CHROMIUM="$chromium" SHOT_DIR="$work" node "$work/annot.test.js" || status=$?

kill -TERM "$pid"
server_status=0
wait "$pid" || server_status=$?
trap - EXIT
if [ "$server_status" -ne 0 ]; then
  echo "FAIL: baghchal-server exited with status $server_status" >&2
  cat "$work/server.err" >&2
  exit 1
fi
exit "$status"
