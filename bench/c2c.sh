#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# c2c — how much slower than native do `perfkit c2c record` and `perfkit mem
# record` run a program, beside cachegrind (--cache-sim=yes) and DRD
# (valgrind --tool=drd, another multi-threaded Valgrind tool), in one run?
# Workloads: examples/falseshare shared ITERS (two threads) and
# examples/matmul ikj REPS (one thread).  The tools run interleaved, RUNS
# times each; median wall and CPU (user + sys) time, slowdown over native,
# and each perfkit mode's time over cachegrind's (the aim: at most 1).
# cachegrind and perfkit mem get the same pinned geometry.
#   bench/c2c.sh [BUILD] [RUNS] [ITERS] [REPS]
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-3}
ITERS=${3:-20000000}
REPS=${4:-3}
PK=$BUILD/perfkit
EX=$BUILD/examples
GEOM="--D1=49152,12,64 --LL=33554432,16,64"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
command -v valgrind >/dev/null || { echo "c2c: valgrind not installed"; exit 0; }
ls "$BUILD"/vgtool/pkcache-* >/dev/null 2>&1 || { echo "c2c: pkcache not built in $BUILD"; exit 0; }

one_run() { # one_run LABEL CMD...
	local label=$1; shift
	/usr/bin/time -f '%e %U %S' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" || {
		echo "c2c: '$*' failed:" >&2; tail -5 "$TMP/err" >&2; exit 1; }
	awk '{ print $1 >> "'"$TMP/$label.wall"'"; print $2 + $3 >> "'"$TMP/$label.cpu"'" }' "$TMP/t"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

bench() { # bench NAME PROGRAM ARGS...
	local name=$1; shift
	for ((i = 0; i < RUNS; i++)); do
		one_run "$name.native" "$@"
		# shellcheck disable=SC2086
		one_run "$name.cachegrind" valgrind -q --tool=cachegrind --cache-sim=yes $GEOM \
			--cachegrind-out-file="$TMP/cg.out" "$@"
		one_run "$name.drd" valgrind -q --tool=drd "$@"
		one_run "$name.pk_c2c" "$PK" c2c record -o "$TMP/out.c2c" -- "$@"
		# shellcheck disable=SC2086
		one_run "$name.pk_mem" "$PK" mem record $GEOM --L2=2097152,16,64 -o "$TMP/out.mem" -- "$@"
	done
	local bw bc cgw cgc
	bw=$(median <"$TMP/$name.native.wall"); bc=$(median <"$TMP/$name.native.cpu")
	cgw=$(median <"$TMP/$name.cachegrind.wall"); cgc=$(median <"$TMP/$name.cachegrind.cpu")
	printf "%s (%s), median of %s runs\n" "$name" "$*" "$RUNS"
	printf "  %-12s %9s %9s %9s %9s %16s\n" run wall-s slowdown cpu-s slowdown "cpu/cachegrind"
	for l in native cachegrind drd pk_c2c pk_mem; do
		local w c
		w=$(median <"$TMP/$name.$l.wall"); c=$(median <"$TMP/$name.$l.cpu")
		printf "  %-12s %9.2f %8.1fx %9.2f %8.1fx %16.2f\n" "$l" "$w" \
			"$(awk -v a="$w" -v b="$bw" 'BEGIN { print (b > 0) ? a / b : 0 }')" "$c" \
			"$(awk -v a="$c" -v b="$bc" 'BEGIN { print (b > 0) ? a / b : 0 }')" \
			"$(awk -v a="$c" -v b="$cgc" 'BEGIN { print (b > 0) ? a / b : 0 }')"
	done
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); geometry $GEOM (mem: + --L2=2097152,16,64)"
bench falseshare "$EX/falseshare" shared "$ITERS"
bench matmul "$EX/matmul" ikj "$REPS"
