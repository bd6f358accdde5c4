#!/usr/bin/env bash
# The web board in a real browser: starts baghchal-server on a free loopback port, installs
# playwright-core and axe-core (npm ci, once, into the work directory, under a lock so that
# tests started together share it) and runs one test file in Debian's headless Chromium.
# Fails loudly when node, npm or Chromium is missing. The files (ctest runs each as its own
# test, test_browser_<name>, so two run at once):
#   board.test.js    the board: play, engine, lines, analysis, editor, record, failures
#   defects.test.js  the defects players found, at 1280x800 and 390x844
#   i18n.test.js     Nepali and English: every key translated, no English left in Nepali
#   puzzles.test.js  the puzzles: solved, failed, the difficulty filter, the streak
#   review.test.js   the game review and learning from mistakes
#   a11y.test.js     axe-core's WCAG A/AA rules in many states, sizes and themes; the keyboard
#   annot.test.js    premoves, move glyphs and comments, PGN with NAGs and comments
#   analysis.test.js the engine lines and the analysis searching on until stopped
#   lobby.test.js    playing online: the lobby, two players and a spectator, a game to its end
#                    (a server of its own with a temporary database)
# Usage: tests/browser/run.sh <baghchal-server binary> <work dir> <longgame binary> [<file>...]
#        (no file: all of them, one after the other)
# Environment: CHROMIUM (default /usr/bin/chromium).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
server=${1:?usage: run.sh <baghchal-server> <work dir>}
work=${2:?usage: run.sh <baghchal-server> <work dir>}
longgame=${3:?usage: run.sh <baghchal-server> <work dir> <longgame>}
shift 3
files=("$@")
((${#files[@]})) || files=(board.test.js defects.test.js i18n.test.js puzzles.test.js review.test.js a11y.test.js annot.test.js lobby.test.js analysis.test.js)
for f in "${files[@]}"; do
  [ -r "$here/$f" ] || { echo "FAIL: no test file $here/$f" >&2; exit 1; }
done
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
cp "$here/package.json" "$here/package-lock.json" "$work/"
for f in "${files[@]}"; do cp "$here/$f" "$work/"; done
(
  flock 9
  if ! cmp -s "$here/package-lock.json" "$work/node_modules/.package-lock.json.copy" 2>/dev/null ||
     [ ! -d "$work/node_modules/playwright-core" ] || [ ! -d "$work/node_modules/axe-core" ]; then
    echo "== npm ci (playwright-core, axe-core) in $work"
    if ! (cd "$work" && npm ci --no-audit --no-fund --loglevel=error); then
      echo "FAIL: npm ci could not install playwright-core and axe-core" >&2
      exit 1
    fi
    cp "$here/package-lock.json" "$work/node_modules/.package-lock.json.copy"
  fi
) 9>"$work/npm.lock"

tag=$(printf '%s' "${files[*]}" | tr -c 'a-zA-Z0-9\n' '_' | cut -c1-60)
out="$work/server-$tag.out"
: >"$out"
# With a database (BAGHCHAL_TB_DIR, as tools/run-tests.sh sets it) the analysis view is also
# checked on database values.
tb=()
if [ -n "${BAGHCHAL_TB_DIR:-}" ] && [ -r "$BAGHCHAL_TB_DIR/baghchal.tb" ]; then
  tb=(--tablebase "$BAGHCHAL_TB_DIR")
fi
"$server" --port 0 --workers 2 --hash 8 --movetime 100 --max-movetime 3000 "${tb[@]}" >"$out" 2>"$work/server-$tag.err" &
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
  cat "$work/server-$tag.err" >&2
  exit 1
fi

# A legal game of 1,500 plies (more than a request once took) for the board to go on with.
long=$("$longgame" plies 1500 forbid 5 2>/dev/null | sed 's/^position startpos moves //')
if [ -z "$long" ]; then
  echo "FAIL: $longgame wrote no game" >&2
  exit 1
fi

status=0
web="$here/../../tools/obx-server/web"
for f in "${files[@]}"; do
  echo "== $f"
  BOARD_LONGGAME="$long" BOARD_URL="http://127.0.0.1:$port/" BOARD_SERVER="$server" BOARD_TB=${#tb[@]} \
    BOARD_WEB="$web" BOARD_LOCAL_JS="$here/../../wasm/web/local.js" CHROMIUM="$chromium" SHOT_DIR="$work" \
    node "$work/$f" || status=$?
done

kill -TERM "$pid"
server_status=0
wait "$pid" || server_status=$?
trap - EXIT
if [ "$server_status" -ne 0 ]; then
  echo "FAIL: baghchal-server exited with status $server_status" >&2
  cat "$work/server-$tag.err" >&2
  exit 1
fi
exit "$status"
