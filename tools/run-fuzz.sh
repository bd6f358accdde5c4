#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang in build-fuzz and runs them side by side, each for
# a bounded time on a copy of its seed corpus (the source tree is never written). Exits
# non-zero if a harness finds a crash, a leak or a hang, and prints the reproducer.
#
#   tools/run-fuzz.sh [seconds-per-harness]      (default 60)
#
# Environment: BAGHCHAL_FUZZ_BUILD overrides the build directory (default <repo>/build-fuzz).
set -euo pipefail

seconds=${1:-60}
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: $0 [seconds-per-harness]" >&2
    exit 2
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BAGHCHAL_FUZZ_BUILD:-$root/build-fuzz}
harnesses=(obx protocol)

if [[ -f $build/CMakeCache.txt ]] && ! grep -q '^CMAKE_C_COMPILER_ID:.*Clang\|^CMAKE_C_COMPILER:.*clang' "$build/CMakeCache.txt"; then
    echo "run-fuzz: $build was configured with another compiler; remove it first" >&2
    exit 2
fi

CC=clang cmake -S "$root" -B "$build" -DBAGHCHAL_FUZZ=ON -DBAGHCHAL_NATIVE=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2 --target "${harnesses[@]/#/fuzz_}"

# The harnesses run side by side (one core each), then each is reported in turn.
run_one() { # harness
    local h=$1 bin=$build/bin/fuzz_$1 work=$build/fuzz-run/$1 status=0
    (cd "$work" && "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log" 2>&1) || status=$?
    echo "$status" >"$work/status"
}
for h in "${harnesses[@]}"; do
    work=$build/fuzz-run/$h
    rm -rf "$work"
    mkdir -p "$work/corpus" "$work/artifacts"
    cp -R "$root/tests/fuzz/corpus/$h/." "$work/corpus/"
    echo "== fuzz_$h: ${seconds}s on $(find "$work/corpus" -type f | wc -l) seeds (log: $work/log)"
    run_one "$h" &
done
wait

failed=0
for h in "${harnesses[@]}"; do
    bin=$build/bin/fuzz_$h
    work=$build/fuzz-run/$h
    status=$(cat "$work/status" 2>/dev/null || echo 1)
    grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$work/log" || true
    mapfile -t found < <(find "$work/artifacts" -type f | sort)
    if ((status != 0 || ${#found[@]} > 0)); then
        failed=1
        echo "!! fuzz_$h failed (exit status $status); the end of its log:"
        tail -n 40 "$work/log"
        for f in "${found[@]}"; do
            echo "!! reproducer: $f"
            echo "!!   run: $bin $f"
        done
    else
        echo "== fuzz_$h: no crash"
    fi
done
exit $failed
