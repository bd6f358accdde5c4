#!/usr/bin/env bash
# tools/bench/forbid-selfplay.py --report on records written here: the table's rows (scores
# with their 95% Wilson intervals, plies, games at once), the CSVs, the plot, --min-games, and
# its refusals. The start position's OBX comes from the engine, as in a real run.
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
script="$src/tools/bench/forbid-selfplay.py"
start='TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #'
placed='TXXXT/XXXXX/XXXXX/XXXXX/TGXXT t @19 c0 mB1 #g1'
game() { # number opening result plies
    printf '[Game "%s"]\n[Opening "%s"]\n[Result "%s"]\n[Termination "%s"]\n[Plies "%s"]\n\n1. C1\n[Final "x"]\n\n' \
        "$1" "$2" "$3" "$([ "$3" = goats ] && echo tigers trapped || echo five goats captured)" "$4"
}
out="$tmp/out"
mkdir -p "$out"
{ echo "; setting repetition: forbid"; game 1 "$start" goats 100; game 2 "$start" tigers 50; game 3 "$placed" tigers 70; } \
    > "$out/forbid-25ms.txt"
{ game 1 "$placed" goats 40; game 2 "$start" tigers 61; } > "$out/forbid-50ms.txt"
printf '1795000000 1\n1795000100 2\n1795000200 2\n' > "$out/concurrency-50ms.txt"

python3 "$script" --bin "$build/bin" --out "$out" --report > "$tmp/table.txt"
want25='| 25 | 3 | 1 / 2: 50% (9-91%) | 0 / 1: 0% (0-79%) | 1 / 3: 33% (6-79%) | 70 (50-100) | - | - | 1 |'
want50='| 50 | 2 | 0 / 1: 0% (0-79%) | 1 / 1: 100% (21-100%) | 1 / 2: 50% (9-91%) | 50.5 (40-61) | - | - | 1, 2 |'
for w in "$want25" "$want50"; do
    grep -qxF -- "$w" "$out/forbid-selfplay.md" || { echo "missing row: $w"; cat "$out/forbid-selfplay.md"; exit 1; }
    grep -qxF -- "$w" "$tmp/table.txt" || { echo "not printed: $w"; exit 1; }
done
grep -q '| games at once |$' "$out/forbid-selfplay.md"
# The CSVs: a row a time, a row a game.
test "$(wc -l < "$out/forbid-selfplay.csv")" -eq 3
grep -q '^50,2,1,0,1,1,2,1,0,50.5,40,61,,,,,,0,"1, 2",' "$out/forbid-selfplay.csv" \
    || { echo "csv row:"; cat "$out/forbid-selfplay.csv"; exit 1; }
test "$(wc -l < "$out/forbid-selfplay-games.csv")" -eq 6
grep -q '^25,3,placement,' "$out/forbid-selfplay-games.csv"
# The plot: three marks (all, from the start, from a placement) a time with games in it.
test "$(grep -c '<circle cx=' "$out/forbid-selfplay.svg")" -eq $((3 + 3 + 3))
grep -q '<title>50 ms, from a first placement: 1 of 1 (100%, 95%: 21-100%)</title>' "$out/forbid-selfplay.svg"

# --min-games leaves out a series with fewer games.
python3 "$script" --bin "$build/bin" --out "$out" --report --min-games 3 > /dev/null
grep -q '^| 25 | 3 |' "$out/forbid-selfplay.md"
! grep -q '^| 50 |' "$out/forbid-selfplay.md"

# Refusals: exit 1 with one line naming what is wrong.
refuse() {
    local want=$1; shift
    set +e
    python3 "$script" "$@" > "$tmp/o" 2> "$tmp/e"
    local rc=$?
    set -e
    [ "$rc" -eq 1 ] || { echo "exit $rc for $*"; exit 1; }
    [ "$(wc -l < "$tmp/e")" -eq 1 ] && grep -q -- "$want" "$tmp/e" || { echo "for $*:"; cat "$tmp/e"; exit 1; }
}
refuse "concurrency must be 1..64" --bin "$build/bin" --out "$out" --report --concurrency 0
refuse "not 'x'" --bin "$build/bin" --out "$out" --report --times x
refuse "no .*baghchal" --bin "$tmp/none" --out "$out" --report
refuse "names no folder" --bin "$build/bin" --out "$out" --tb "$tmp"
echo "forbid-selfplay report ok"
