#!/usr/bin/env bash
# Installs what the tests need (Debian packages, when missing) and runs every test:
# (the browser test also fetches playwright-core from npm into the build directory)
# the release build, the Python package's suites against it (python/tests, in build/venv),
# the same C suites under AddressSanitizer + UndefinedBehaviorSanitizer, under ThreadSanitizer,
# and the libFuzzer harnesses for a bounded time.
# Usage: tools/run-tests.sh [fuzz-seconds-per-harness (default 60)]
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_seconds=${1:-60}

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v cc >/dev/null || need+=(gcc)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v clang >/dev/null || need+=(clang)
pkg-config --exists criterion 2>/dev/null || need+=(libcriterion-dev)
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-dev)
# The OBX HTTP server and its browser test (playwright-core comes from npm in the test).
pkg-config --exists libmicrohttpd 2>/dev/null || need+=(libmicrohttpd-dev)
pkg-config --exists libcjson 2>/dev/null || need+=(libcjson-dev)
# The room where people play: games kept in SQLite, passwords hashed by libsodium.
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
pkg-config --exists libsodium 2>/dev/null || need+=(libsodium-dev)
# The room on PostgreSQL (--database postgresql://...): libpq, and the server its suites start.
pkg-config --exists libpq 2>/dev/null || need+=(libpq-dev)
dpkg -s postgresql >/dev/null 2>&1 || need+=(postgresql)
# baghchal-bot, which plays on the server as a bot: libcurl.
pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev)
[ -x /usr/bin/chromium ] || need+=(chromium)
# A font for the board's Nepali (Devanagari), which the browser test measures and shows.
dpkg -s fonts-lohit-deva >/dev/null 2>&1 || need+=(fonts-lohit-deva)
command -v node >/dev/null || need+=(nodejs npm)
# The WebAssembly engines (target board-static, suite test_wasm): Debian's emscripten.
command -v emcc >/dev/null || need+=(emscripten)
# The Python package (python/): Debian's python3 with its headers, venv, setuptools, pytest, numpy and
# build (its test makes the sdist and the wheel offline and installs them in fresh venvs).
for p in python3-dev python3-venv python3-setuptools python3-wheel python3-pytest python3-numpy python3-build; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if ((${#need[@]})); then
  echo "== installing: ${need[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

jobs=$(nproc)
# Each stage says how long it took (its build and its tests apart), so that the one that
# grows is seen.
took() { # what, start (SECONDS)
  echo "== $1: $((SECONDS - $2)) s"
}
run_suite() { # build-dir, cmake options...
  local dir=$1 t0=$SECONDS; shift
  echo "== $dir: $*"
  cmake -S . -B "$dir" -DBAGHCHAL_TESTS=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" 2>&1 | { grep -E "warning|error" || true; }
  cmake --build "$dir" -j "$jobs" >/dev/null
  took "$dir built" "$t0"
  t0=$SECONDS
  (cd "$dir" && ctest --output-on-failure -j "$jobs" ${CTEST_EXCLUDE:+-E "$CTEST_EXCLUDE"})
  took "$dir tested" "$t0"
}

# The movement-phase database, built once by the release tools and shared by every run
# (rebuilt only when missing or damaged: the generator checks and resumes).
t0=$SECONDS
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DBAGHCHAL_TESTS=ON >/dev/null
cmake --build build -j "$jobs" --target baghchal-tbgen >/dev/null
mkdir -p build/tb
echo "== database: build/tb"
build/bin/baghchal-tbgen build/tb --threads "$jobs" 2>/dev/null | tail -n 1
took "database" "$t0"
export BAGHCHAL_TB_DIR="$PWD/build/tb"

run_suite build -DCMAKE_BUILD_TYPE=Release

# The Python package, built from engine/ into a venv of Debian's python3 (no package index),
# its suites checked against this build's executable and database.
echo "== python: build/venv"
t0=$SECONDS
/usr/bin/python3 -m venv --system-site-packages build/venv
build/venv/bin/pip install -q --no-index --no-build-isolation ./python
(cd build && BAGHCHAL_BIN="$PWD/bin" BAGHCHAL_TABLEBASE_PATH= venv/bin/python -m pytest -q -p no:cacheprovider ../python/tests)
took "python" "$t0"
# Sanitized builds run the same suites; timing-sensitive conformance checks are skipped or
# loosened there (they are measured on the release build above). AddressSanitizer's build keeps the
# assertions (Debug) at -O1, as sanitizer builds usually are: -O0 only made it slower. The
# web board's browser test runs once, in the release build: under the sanitizers the server
# is driven by test_server. The WebAssembly engines too (the same wasm whatever the host's
# sanitizer): test_wasm is skipped there.
CTEST_EXCLUDE="${SANITIZER_EXCLUDE:-^$}" run_suite build-asan -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1" -DBAGHCHAL_SANITIZE=ON -DBAGHCHAL_NATIVE=OFF -DBAGHCHAL_BROWSER_TEST=OFF -DBAGHCHAL_WASM=OFF
CTEST_EXCLUDE="${SANITIZER_EXCLUDE:-^$}" run_suite build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBAGHCHAL_TSAN=ON -DBAGHCHAL_NATIVE=OFF -DCMAKE_C_COMPILER=clang -DBAGHCHAL_BROWSER_TEST=OFF -DBAGHCHAL_WASM=OFF

if [ "$fuzz_seconds" -gt 0 ]; then
  echo "== fuzzing, $fuzz_seconds s per harness"
  t0=$SECONDS
  tools/run-fuzz.sh "$fuzz_seconds"
  took "fuzzing" "$t0"
fi
echo "== all tests passed in $SECONDS s"
