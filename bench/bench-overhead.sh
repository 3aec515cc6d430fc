#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-overhead — the benchmark runner's own cost per run, perfkit bench
# against hyperfine, measured in the same run (interleaved, RUNS times each,
# median of the whole process's wall and CPU time):
#   1. -N -r 200 true          wall / 200 = one run of `true` plus the harness
#   2. -r 200 true (with sh)   the same through the shell both tools start
#                              (both also measure and subtract the shell)
#   3. -N -r 40 'sleep 0.05'   wall / 40 − 50 ms = the harness per run of a
#                              50 ms command
# perfkit's default order is interleaved and it records max RSS and CPU per
# run (wait4): that is in the figures.
#   bench/bench-overhead.sh [BUILD] [RUNS]
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-5}
PK=$BUILD/perfkit
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
command -v hyperfine >/dev/null || { echo "bench-overhead: hyperfine is not installed (apt-get install hyperfine)" >&2; exit 1; }

one_run() { # one_run LABEL CMD... — append "wall cpu" to $TMP/LABEL
	local label=$1; shift
	/usr/bin/time -f '%e %U %S' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" || {
		echo "bench-overhead: '$*' failed:" >&2; tail -5 "$TMP/err" >&2; exit 1; }
	awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$TMP/t" >>"$TMP/$label"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

for ((i = 0; i < RUNS; i++)); do
	one_run pk_true "$PK" bench -N -w 0 -r 200 true
	one_run hf_true hyperfine -N -w 0 -r 200 --style none true
	one_run pk_sh "$PK" bench -w 0 -r 200 true
	one_run hf_sh hyperfine -w 0 -r 200 --style none true
	one_run pk_50 "$PK" bench -N -w 0 -r 40 'sleep 0.05'
	one_run hf_50 hyperfine -N -w 0 -r 40 --style none 'sleep 0.05'
done

printf '%-40s %12s %12s\n' "median of $RUNS (load: $(cut -d' ' -f1-3 /proc/loadavg))" "wall/run ms" "cpu/run ms"
row() { # row LABEL FILE N SUBTRACT_MS
	local w c
	w=$(cut -d' ' -f1 "$TMP/$2" | median); c=$(cut -d' ' -f2 "$TMP/$2" | median)
	awk -v l="$1" -v w="$w" -v c="$c" -v n="$3" -v s="$4" \
		'BEGIN { printf "%-40s %12.3f %12.3f\n", l, w / n * 1000 - s, c / n * 1000 }'
	eval "W_$2=$w"
}
row "perfkit bench -N true (per run)" pk_true 200 0
row "hyperfine -N true (per run)" hf_true 200 0
row "perfkit bench true, with sh (per run)" pk_sh 200 0
row "hyperfine true, with sh (per run)" hf_sh 200 0
row "perfkit bench -N sleep 0.05 (run − 50 ms)" pk_50 40 50
row "hyperfine -N sleep 0.05 (run − 50 ms)" hf_50 40 50
ratio() { awk -v a="$2" -v b="$3" -v l="$1" 'BEGIN { if (b > 0) printf "%-40s %12.2f\n", l, a / b }'; }
ratio "true -N: perfkit / hyperfine (wall)" "$W_pk_true" "$W_hf_true"
ratio "true with sh: perfkit / hyperfine (wall)" "$W_pk_sh" "$W_hf_sh"
awk -v a="$W_pk_50" -v b="$W_hf_50" 'BEGIN { oa = a / 40 * 1000 - 50; ob = b / 40 * 1000 - 50;
	printf "%-40s %12.2f\n", "sleep 0.05: overhead perfkit / hyperfine", (ob > 0 ? oa / ob : 0) }'
