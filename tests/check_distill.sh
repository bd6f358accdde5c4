#!/usr/bin/env bash
# A small run of the evaluation's training (tools/distill/train.py, then net.py) on 300 labelled positions
# of tests/data: it writes a weights file the library's format takes (the magic, the size),
# the same bytes from the same seed, and a line that is not sample.py's is refused with a
# one-line reason.
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
"$py" -c 'import numpy' || { echo "check_distill: Debian's python3-numpy is needed"; exit 1; }
train() { "$py" "$src/tools/distill/train.py" --engine "$build/bin/baghchal" --steps 50 --seed 3 "$@"; }
train "$src/tests/data/distill-smoke.tsv" --out "$tmp/a.c" > "$tmp/log"
train "$src/tests/data/distill-smoke.tsv" --out "$tmp/b.c" > /dev/null
cmp "$tmp/a.c" "$tmp/b.c" || { echo "two runs with one seed differ"; exit 1; }
grep -q '^300 positions (' "$tmp/log" || { echo "not 300 positions:"; head -2 "$tmp/log"; exit 1; }
# "BCEV", then version 1 and the number of terms the engine has.
terms=$(grep -c '^    EV_[A-Z_0-9]*,' "$src/engine/eval.h")
head=$(printf '0x42, 0x43, 0x45, 0x56, 0x01, 0x00, 0x%02X, 0x00,' "$terms")
grep -qF "$head" "$tmp/a.c" || { echo "no header '$head'"; head -10 "$tmp/a.c"; exit 1; }
bytes=$(sed -n '/EVAL_TUNED_DATA\[\] = {/,/^};/p' "$tmp/a.c" | grep -o '0x[0-9A-F][0-9A-F],' | wc -l)
[ "$bytes" -eq $((12 + 4 * terms + 4)) ] || { echo "$bytes bytes for $terms terms"; exit 1; }
printf 'not a position\n' > "$tmp/bad.tsv"
if train "$tmp/bad.tsv" --out "$tmp/c.c" 2> "$tmp/err"; then echo "a bad line was taken"; exit 1; fi
grep -q "not a line of sample.py's" "$tmp/err" || { echo "reason: $(cat "$tmp/err")"; exit 1; }
[ ! -e "$tmp/c.c" ] || { echo "a refused run wrote its output"; exit 1; }
# The network's training (tools/distill/net.py): the same bytes from the same seed, "BCNN",
# version 4, K, J, the buckets, the size the library expects for them (eval_net_file_size), a
# bad line refused.
net() { "$py" "$src/tools/distill/net.py" --k 2 --j 3 --epochs 1 --seed 3 "$@"; }
net "$src/tests/data/distill-smoke.tsv" --out "$tmp/n1.c" > "$tmp/nlog"
net "$src/tests/data/distill-smoke.tsv" --out "$tmp/n2.c" > /dev/null
cmp "$tmp/n1.c" "$tmp/n2.c" || { echo "two network runs with one seed differ"; exit 1; }
grep -q '^epoch 1: error' "$tmp/nlog" || { echo "no epoch reported:"; head -2 "$tmp/nlog"; exit 1; }
grep -qF '0x42, 0x43, 0x4E, 0x4E, 0x04, 0x00, 0x02, 0x00, 0x03, 0x00, 0x01, 0x00,' "$tmp/n1.c" || { echo "no network header"; head -8 "$tmp/n1.c"; exit 1; }
bytes=$(sed -n '/EVAL_NET_DATA\[\] = {/,/^};/p' "$tmp/n1.c" | grep -o '0x[0-9A-F][0-9A-F],' | wc -l)
# the header, the first layer (50 board inputs, 28 scalars, the biases), each bucket's layers
# (output weights, the second layer, its biases and output weights, the output bias), the checksum
head=$((2 * 2 + 2 * 2 * 3 + 6 * 3 + 4))
[ "$bytes" -eq $((12 + 2 * 2 * (50 + 28 + 1) + head + 4)) ] || { echo "$bytes bytes in a network of 2 x 3 units"; exit 1; }
net "$src/tests/data/distill-smoke.tsv" --buckets 4 --out "$tmp/n4.c" > /dev/null
grep -qF '0x42, 0x43, 0x4E, 0x4E, 0x04, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04, 0x00,' "$tmp/n4.c" || { echo "no header of 4 buckets"; head -8 "$tmp/n4.c"; exit 1; }
bytes=$(sed -n '/EVAL_NET_DATA\[\] = {/,/^};/p' "$tmp/n4.c" | grep -o '0x[0-9A-F][0-9A-F],' | wc -l)
[ "$bytes" -eq $((12 + 2 * 2 * (50 + 28 + 1) + 4 * head + 4)) ] || { echo "$bytes bytes in a network of 2 x 3 units, 4 buckets"; exit 1; }
if net "$src/tests/data/distill-smoke.tsv" --buckets 3 --out "$tmp/n5.c" 2> "$tmp/err"; then echo "3 buckets were taken"; exit 1; fi
[ ! -e "$tmp/n5.c" ] || { echo "a refused network run wrote its output"; exit 1; }
if net "$tmp/bad.tsv" --out "$tmp/n3.c" 2> "$tmp/err"; then echo "the network took a bad line"; exit 1; fi
grep -q "not a line of sample.py's" "$tmp/err" || { echo "reason: $(cat "$tmp/err")"; exit 1; }
[ ! -e "$tmp/n3.c" ] || { echo "a refused network run wrote its output"; exit 1; }
# Training on from a network (--init): its shape is the file's whatever --k and --j say, its
# error before training is reported, and with --epochs 0 it is written back byte for byte;
# a file whose bytes were changed is refused with a one-line reason.
"$py" "$src/tools/distill/net.py" --k 5 --j 5 --epochs 0 --init "$tmp/n4.c" "$src/tests/data/distill-smoke.tsv" \
  --out "$tmp/i0.c" > "$tmp/ilog"
grep -q "^from $tmp/n4.c: error" "$tmp/ilog" || { echo "no starting error reported:"; head -2 "$tmp/ilog"; exit 1; }
cmp <(sed -n '/EVAL_NET_DATA/,$p' "$tmp/n4.c") <(sed -n '/EVAL_NET_DATA/,$p' "$tmp/i0.c") ||
  { echo "a network read back and written again differs"; exit 1; }
# A network of one output layer given 4 (--buckets 4): each starts as the one, so its values,
# and its error, are the same until it is trained; 4 cannot become 1.
"$py" "$src/tools/distill/net.py" --epochs 0 --init "$tmp/n1.c" "$src/tests/data/distill-smoke.tsv" --out "$tmp/r1.c" > "$tmp/r1log"
"$py" "$src/tools/distill/net.py" --epochs 0 --buckets 4 --init "$tmp/n1.c" "$src/tests/data/distill-smoke.tsv" --out "$tmp/r4.c" > "$tmp/r4log"
grep -qF '0x42, 0x43, 0x4E, 0x4E, 0x04, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04, 0x00,' "$tmp/r4.c" || { echo "1 made 4: not 4 buckets"; head -8 "$tmp/r4.c"; exit 1; }
[ "$(grep rounded "$tmp/r1log")" = "$(grep rounded "$tmp/r4log")" ] || { echo "1 made 4 changed the error: $(cat "$tmp/r1log" "$tmp/r4log")"; exit 1; }
if "$py" "$src/tools/distill/net.py" --epochs 0 --buckets 1 --init "$tmp/n4.c" "$src/tests/data/distill-smoke.tsv" --out "$tmp/r0.c" 2> "$tmp/err"; then
  echo "4 buckets were made 1"; exit 1
fi
grep -q "only a network of one" "$tmp/err" || { echo "reason: $(cat "$tmp/err")"; exit 1; }
"$py" "$src/tools/distill/net.py" --epochs 1 --seed 3 --lr 0.0005 --init "$tmp/n1.c" "$src/tests/data/distill-smoke.tsv" \
  --out "$tmp/i1.c" > /dev/null
grep -qF '0x42, 0x43, 0x4E, 0x4E, 0x04, 0x00, 0x02, 0x00, 0x03, 0x00, 0x01, 0x00,' "$tmp/i1.c" || { echo "trained on, not the file's shape"; head -8 "$tmp/i1.c"; exit 1; }
! cmp -s "$tmp/n1.c" "$tmp/i1.c" || { echo "an epoch from the file changed nothing"; exit 1; }
sed '0,/^    0x42, 0x43, 0x4E, 0x4E, 0x04, 0x00, 0x02, 0x00, 0x03, 0x00, 0x01, 0x00,$/{n;s/^    0x\(..\)/    0x7F/}' "$tmp/n1.c" > "$tmp/bad.c"
! cmp -s "$tmp/n1.c" "$tmp/bad.c" || { echo "the damaged copy is not damaged"; exit 1; }
if "$py" "$src/tools/distill/net.py" --epochs 1 --init "$tmp/bad.c" "$src/tests/data/distill-smoke.tsv" --out "$tmp/i2.c" 2> "$tmp/err"; then
  echo "a damaged network was taken"; exit 1
fi
grep -q "not a network file of this format" "$tmp/err" || { echo "reason: $(cat "$tmp/err")"; exit 1; }
[ ! -e "$tmp/i2.c" ] || { echo "a refused --init run wrote its output"; exit 1; }
