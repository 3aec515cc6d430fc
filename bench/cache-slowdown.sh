#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cache-slowdown — how much slower than native does a program run under
#   cachegrind --cache-sim=yes --branch-sim=yes, perfkit cache --model=cachegrind
#   --branch-sim=yes (the same work; run plainly, as perfkit runs it),
#   perfkit cache --model=modern and plain Valgrind (--tool=none)?
# On examples/matmul ikj REPS (enough repetitions that start-up is small),
# interleaved, RUNS times each; median wall time and slowdown over native.
#   bench/cache-slowdown.sh [BUILD] [RUNS] [REPS]
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-3}
REPS=${3:-5}
PK=$BUILD/perfkit
MM=$BUILD/examples/matmul
VGLIB=$BUILD/vgtool/lib
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
command -v valgrind >/dev/null || { echo "cache-slowdown: valgrind not installed"; exit 0; }
ls "$VGLIB"/pkcache-* >/dev/null 2>&1 || { echo "cache-slowdown: pkcache not built in $BUILD"; exit 0; }

one_run() { # one_run LABEL CMD...
	local label=$1; shift
	/usr/bin/time -f '%e' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" || {
		echo "cache-slowdown: '$*' failed:" >&2; tail -5 "$TMP/err" >&2; exit 1; }
	cat "$TMP/t" >>"$TMP/$label"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

for ((i = 0; i < RUNS; i++)); do
	one_run native "$MM" ikj "$REPS"
	one_run nulgrind valgrind -q --tool=none "$MM" ikj "$REPS"
	one_run cachegrind valgrind -q --tool=cachegrind --cache-sim=yes \
		--branch-sim=yes --cachegrind-out-file="$TMP/cg.out" "$MM" ikj "$REPS"
	one_run pk_cachegrind "$PK" cache -q --model=cachegrind --branch-sim=yes -o "$TMP/pk1.out" "$MM" ikj "$REPS"
	one_run pk_modern "$PK" cache -q --model=modern -o "$TMP/pk2.out" "$MM" ikj "$REPS"
done
base=$(median <"$TMP/native")
printf "matmul ikj %s, median of %s runs (wall seconds, slowdown over native)\n" "$REPS" "$RUNS"
for l in native nulgrind cachegrind pk_cachegrind pk_modern; do
	m=$(median <"$TMP/$l")
	printf "  %-28s %8.2f s  %6.1fx\n" "$l" "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN { print a / b }')"
done
