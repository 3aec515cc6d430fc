#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cache-slowdown — how much slower than native does a program run under
#   cachegrind --cache-sim=yes --branch-sim=yes, perfkit cache --model=cachegrind
#   --branch-sim=yes (the same work; run plainly, as perfkit runs it),
#   perfkit cache --model=modern and plain Valgrind (--tool=none)?
# On examples/matmul VARIANT REPS (ikj by default; enough repetitions that
# start-up is small),
# interleaved, RUNS times each; median wall time and median CPU time
# (user + sys: steadier than wall time on a busy machine), slowdown over
# native, and the two ratios that matter: perfkit's models against
# cachegrind, measured in the same run.  All simulators get the same
# pinned geometry (a current x86-64 core) so they do comparable work.
#   bench/cache-slowdown.sh [BUILD] [RUNS] [REPS] [VARIANT]
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-3}
REPS=${3:-5}
V=${4:-ikj}
PK=$BUILD/perfkit
MM=$BUILD/examples/matmul
VGTOOL_DIR=$BUILD/vgtool
GEOM="--I1=32768,8,64 --D1=49152,12,64 --LL=33554432,16,64"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
command -v valgrind >/dev/null || { echo "cache-slowdown: valgrind not installed"; exit 0; }
ls "$VGTOOL_DIR"/pkcache-* >/dev/null 2>&1 || { echo "cache-slowdown: pkcache not built in $BUILD"; exit 0; }

one_run() { # one_run LABEL CMD...
	local label=$1; shift
	/usr/bin/time -f '%e %U %S' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" || {
		echo "cache-slowdown: '$*' failed:" >&2; tail -5 "$TMP/err" >&2; exit 1; }
	awk '{ print $1 >> "'"$TMP/$label.wall"'"; print $2 + $3 >> "'"$TMP/$label.cpu"'" }' "$TMP/t"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

for ((i = 0; i < RUNS; i++)); do
	one_run native "$MM" "$V" "$REPS"
	one_run nulgrind valgrind -q --tool=none "$MM" "$V" "$REPS"
	# shellcheck disable=SC2086
	one_run cachegrind valgrind -q --tool=cachegrind --cache-sim=yes \
		--branch-sim=yes $GEOM --cachegrind-out-file="$TMP/cg.out" "$MM" "$V" "$REPS"
	# shellcheck disable=SC2086
	one_run pk_cachegrind "$PK" cache -q --model=cachegrind --branch-sim=yes $GEOM -o "$TMP/pk1.out" "$MM" "$V" "$REPS"
	# shellcheck disable=SC2086
	one_run pk_modern "$PK" cache -q --model=modern $GEOM --L2=2097152,16,64 -o "$TMP/pk2.out" \
		"$MM" "$V" "$REPS"
done
bw=$(median <"$TMP/native.wall")
bc=$(median <"$TMP/native.cpu")
printf "matmul %s %s, median of %s runs; geometry %s (modern: + --L2=2097152,16,64)\n" \
	"$V" "$REPS" "$RUNS" "$GEOM"
printf "  %-16s %9s %9s %9s %9s\n" run wall-s slowdown cpu-s slowdown
for l in native nulgrind cachegrind pk_cachegrind pk_modern; do
	w=$(median <"$TMP/$l.wall")
	c=$(median <"$TMP/$l.cpu")
	printf "  %-16s %9.2f %8.1fx %9.2f %8.1fx\n" "$l" "$w" \
		"$(awk -v a="$w" -v b="$bw" 'BEGIN { print a / b }')" "$c" \
		"$(awk -v a="$c" -v b="$bc" 'BEGIN { print (b > 0) ? a / b : 0 }')"
done
cgw=$(median <"$TMP/cachegrind.wall"); cgc=$(median <"$TMP/cachegrind.cpu")
for l in pk_cachegrind pk_modern; do
	w=$(median <"$TMP/$l.wall"); c=$(median <"$TMP/$l.cpu")
	printf "  %-16s time / cachegrind's: wall %.2f, cpu %.2f (below 1: faster)\n" "$l" \
		"$(awk -v a="$w" -v b="$cgw" 'BEGIN { print a / b }')" \
		"$(awk -v a="$c" -v b="$cgc" 'BEGIN { print a / b }')"
done
