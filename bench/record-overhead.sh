#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# record-overhead — what does recording cost?  Runs `matmul naive` natively,
# under `perfkit record -F 999 -g` and under `perf record -F 999 -g`, in one
# run, interleaved, RUNS times each, and prints the median whole-process wall
# and CPU (user+sys, the recorder and the workload together) of each, with
# ratios against the native run and against perf.
#   bench/record-overhead.sh [BUILD] [REPS] [RUNS]
#   OPTS="-z" (or -F 20000, …): more options given to both recorders; the
#   files' sizes are printed too
set -euo pipefail
BUILD=${1:-build}
REPS=${2:-45}          # matmul repetitions: about 2.2 s natively here
RUNS=${3:-5}
OPTS=${OPTS:-}
PK=$BUILD/perfkit
MM=$BUILD/examples/matmul
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# one_run LABEL CMD... — append "wall cpu" to $TMP/LABEL
one_run() {
	local label=$1; shift
	/usr/bin/time -f '%e %U %S' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" || {
		echo "record-overhead: '$*' failed:" >&2; cat "$TMP/err" >&2; exit 1; }
	awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$TMP/t" >> "$TMP/$label"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

have_perf=1
perf record -q -o "$TMP/probe.data" -- true >/dev/null 2>&1 || have_perf=0

for ((i = 0; i < RUNS; i++)); do
	one_run native "$MM" naive "$REPS"
	# shellcheck disable=SC2086
	one_run perfkit "$PK" record -F 999 -g $OPTS -o "$TMP/pk.data" -- "$MM" naive "$REPS"
	# shellcheck disable=SC2086
	[ $have_perf = 1 ] && one_run perf perf record -F 999 -g $OPTS -o "$TMP/perf.data" -- "$MM" naive "$REPS"
done

printf '%-34s %9s %9s\n' "matmul naive $REPS, median of $RUNS${OPTS:+, $OPTS}" "wall s" "cpu s"
for l in native perfkit perf; do
	[ -f "$TMP/$l" ] || continue
	w=$(cut -d' ' -f1 "$TMP/$l" | median); c=$(cut -d' ' -f2 "$TMP/$l" | median)
	eval "${l}_w=$w ${l}_c=$c"
	printf '%-34s %9.3f %9.3f\n' "$l" "$w" "$c"
done
awk -v nw="$native_w" -v nc="$native_c" -v kw="$perfkit_w" -v kc="$perfkit_c" 'BEGIN {
	printf "perfkit record vs native:  wall %+.1f%%  cpu %+.1f%%\n", (kw/nw-1)*100, (kc/nc-1)*100 }'
if [ $have_perf = 1 ]; then
	awk -v pw="$perf_w" -v pc="$perf_c" -v kw="$perfkit_w" -v kc="$perfkit_c" -v nw="$native_w" -v nc="$native_c" 'BEGIN {
	printf "perf record vs native:     wall %+.1f%%  cpu %+.1f%%\n", (pw/nw-1)*100, (pc/nc-1)*100
	printf "perfkit/perf added time:   wall %.3f s vs %.3f s, cpu %.3f s vs %.3f s\n", kw-nw, pw-nw, kc-nc, pc-nc }'
else
	echo "perf record: not usable here, peer skipped"
fi
echo "files: perfkit $(stat -c %s "$TMP/pk.data") bytes$([ $have_perf = 1 ] && echo ", perf $(stat -c %s "$TMP/perf.data") bytes")"
