#!/usr/bin/env bash
# Runs wasm/static-test.js (the static board in headless Chromium, without and with
# baghchal-server) with playwright-core installed as the web board's browser test installs it
# (tests/browser/package-lock.json, npm ci into the work directory).
# Usage: wasm/static-test.sh <board-static dir> <baghchal-server> <work dir>
# Environment: BAGHCHAL_TB_DIR (a database for exact analysis), CHROMIUM.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
board=${1:?usage: static-test.sh <board-static dir> <baghchal-server> <work dir>}
server=${2:?usage: static-test.sh <board-static dir> <baghchal-server> <work dir>}
work=${3:?usage: static-test.sh <board-static dir> <baghchal-server> <work dir>}
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "FAIL: the static board's test needs $tool" >&2; exit 1; }
done
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || { echo "FAIL: no ${CHROMIUM:-/usr/bin/chromium} (Debian: chromium)" >&2; exit 1; }
mkdir -p "$work"
lock="$here/../tests/browser/package-lock.json"
if ! cmp -s "$lock" "$work/node_modules/.package-lock.json.copy" 2>/dev/null || [ ! -d "$work/node_modules/playwright-core" ]; then
  cp "$here/../tests/browser/package.json" "$lock" "$work/"
  (cd "$work" && npm ci --no-audit --no-fund --loglevel=error) || { echo "FAIL: npm ci could not install playwright-core" >&2; exit 1; }
  cp "$lock" "$work/node_modules/.package-lock.json.copy"
fi
tb=""
if [ -n "${BAGHCHAL_TB_DIR:-}" ] && [ -r "$BAGHCHAL_TB_DIR/baghchal.tb" ]; then
  tb=$BAGHCHAL_TB_DIR
fi
BOARD_DIR="$board" BOARD_SERVER="$server" BOARD_TB="$tb" NODE_PATH="$work/node_modules" node "$here/static-test.js"
