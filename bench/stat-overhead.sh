#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# stat-overhead — what do counting and benchmarking cost?  In one run,
# interleaved, RUNS times each (median wall and CPU of the whole process):
#   1. perfkit stat -r 200 true   vs  perf stat -r 200 true
#   2. perfkit stat matmul ikj 5  vs  perf stat matmul ikj 5 (a longer command)
#   3. perfkit bench -N -r 200 true  vs  hyperfine -N -r 200 true: whole wall
#      time / 200 = the cost of one run of `true` including the harness
#   4. the elapsed time each reports for `stat -n -r 100 /bin/true` (what the
#      user reads: the clock's start and stop around the command)
#   bench/stat-overhead.sh [BUILD] [RUNS]
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-5}
PK=$BUILD/perfkit
MM=$BUILD/examples/matmul
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

one_run() { # one_run LABEL CMD... — append "wall cpu" to $TMP/LABEL
	local label=$1; shift
	/usr/bin/time -f '%e %U %S' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" || {
		echo "stat-overhead: '$*' failed:" >&2; tail -5 "$TMP/err" >&2; exit 1; }
	awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$TMP/t" >>"$TMP/$label"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

have_perf=1; perf stat -e task-clock true >/dev/null 2>&1 || have_perf=0
have_hf=1; command -v hyperfine >/dev/null || { have_hf=0; echo "(hyperfine not installed: apt-get install hyperfine)"; }

for ((i = 0; i < RUNS; i++)); do
	one_run pk_true "$PK" stat -r 200 true
	[ $have_perf = 1 ] && one_run perf_true perf stat -r 200 true
	one_run pk_mm "$PK" stat "$MM" ikj 5
	[ $have_perf = 1 ] && one_run perf_mm perf stat "$MM" ikj 5
	one_run pk_bench "$PK" bench -N -r 200 true
	[ $have_hf = 1 ] && one_run hyperfine hyperfine -N -r 200 --style none true
	"$PK" stat -n -r 100 /bin/true 2>&1 | awk '/seconds time elapsed/ { print $1 }' >>"$TMP/pk_el"
	[ $have_perf = 1 ] && perf stat -n -r 100 /bin/true 2>&1 | awk '/seconds time elapsed/ { print $1 }' >>"$TMP/perf_el"
done

row() { # row LABEL FILE
	[ -f "$TMP/$2" ] || return 0
	w=$(cut -d' ' -f1 "$TMP/$2" | median); c=$(cut -d' ' -f2 "$TMP/$2" | median)
	printf '%-44s %8.3f %8.3f\n' "$1" "$w" "$c"
	eval "W_$2=$w"
}
printf '%-44s %8s %8s\n' "median of $RUNS" "wall s" "cpu s"
row "perfkit stat -r 200 true" pk_true
row "perf stat -r 200 true" perf_true
row "perfkit stat matmul ikj 5" pk_mm
row "perf stat matmul ikj 5" perf_mm
row "perfkit bench -N -r 200 true" pk_bench
row "hyperfine -N -r 200 true" hyperfine
ratio() { awk -v a="$2" -v b="$3" -v l="$1" 'BEGIN { if (b > 0) printf "%-44s %8.2f\n", l, a / b }'; }
per_run() { awk -v a="$2" -v l="$1" 'BEGIN { printf "%-44s %8.2f ms\n", l, a / 200 * 1000 }'; }
[ $have_perf = 1 ] && ratio "stat true ×200: perfkit / perf (wall)" "$W_pk_true" "$W_perf_true"
[ $have_perf = 1 ] && ratio "stat matmul: perfkit / perf (wall)" "$W_pk_mm" "$W_perf_mm"
per_run "perfkit bench: wall per run of true" "$W_pk_bench"
[ $have_hf = 1 ] && per_run "hyperfine: wall per run of true" "$W_hyperfine"
[ $have_hf = 1 ] && ratio "bench true ×200: perfkit / hyperfine (wall)" "$W_pk_bench" "$W_hyperfine"
E_pk=$(median <"$TMP/pk_el")
awk -v a="$E_pk" 'BEGIN { printf "%-44s %8.3f ms\n", "perfkit stat -n -r 100 /bin/true: elapsed", a * 1000 }'
if [ $have_perf = 1 ]; then
	E_perf=$(median <"$TMP/perf_el")
	awk -v a="$E_perf" 'BEGIN { printf "%-44s %8.3f ms\n", "perf stat -n -r 100 /bin/true: elapsed", a * 1000 }'
	ratio "elapsed reported: perfkit / perf" "$E_pk" "$E_perf"
fi
exit 0
