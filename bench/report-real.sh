#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/report-real.sh [BUILD] — `perfkit report` against `perf report
# --stdio` on a real profile: `perf record -F FREQ -g` of a parallel build
# (make -j2) of a copy of this tree, many processes and DSOs, frame-pointer
# call chains.  Each command runs once (perf takes minutes on such a file);
# CPU is user + system time of the process (it moves much less than wall
# time on a shared machine), peak RSS includes the pages of the mapped input.
# Prints the CPU and memory ratios against perf and the aims (issue 21).
#   REPORT_DATA=FILE  use this recording instead of making one
#   REAL=1            use bench/real-inputs.sh's recording (made once, kept)
#   FREQ=HZ           recording frequency (default 30000)
#   BUILDS=N          builds of the copy recorded (default 1; each is make -j2
#                     then make clean)
#   PERF_TIMEOUT=S    limit per perf run (default 1800)
#   RUNS=N            the -g none pairs (with and without Children) and the
#                     --stats pair run N times interleaved, medians printed
#                     (default 1)
#   ONLY=gnone        the -g none pairs only (perf's default report takes
#                     minutes and 9 GB on a compile job's file)
#   COMPACT=1         before each timed command, compact the kernel's free
#                     memory (root: /proc/sys/vm/compact_memory), so that no
#                     command pays for the one before it: perf frees 500 MB
#                     in 4 KiB pieces, and perfkit's huge pages right after
#                     are compacted first in its page faults (its system
#                     time doubles).  Without it, the order is the script's.
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
TOP=$PWD
PK=$TOP/$BUILD/perfkit
FREQ=${FREQ:-30000}
BUILDS=${BUILDS:-1}
PERF_TIMEOUT=${PERF_TIMEOUT:-1800}
W=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
[ -x "$PK" ] || { echo "build $PK first (make BUILD=$BUILD)" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (GNU time) not installed" >&2; exit 1; }

DATA=${REPORT_DATA:-}
if [ -z "$DATA" ] && [ "${REAL:-0}" = 1 ]; then   # the shared real-profile inputs
	eval "$(bash bench/real-inputs.sh "$BUILD" | tail -1)"
	DATA=$REAL_DIR/real.data
fi
if [ -z "$DATA" ]; then
	DATA=$W/real.data
	mkdir "$W/tree"
	git -C "$TOP" ls-files -z | (cd "$TOP" && xargs -0 cp --parents -t "$W/tree")
	cmd="cd '$W/tree'"
	for _ in $(seq "$BUILDS"); do cmd="$cmd; make -j2 >/dev/null 2>&1; make clean >/dev/null 2>&1"; done
	perf record -F "$FREQ" -g -o "$DATA" -- sh -c "$cmd" >/dev/null 2>"$W/rec.err" || {
		cat "$W/rec.err" >&2; exit 1; }
fi
nsamp=$(perf report -i "$DATA" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
echo "input: $DATA, $(du -h "$DATA" | cut -f1), ${nsamp:-?} samples"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
cat "$DATA" >/dev/null

# t NAME CMD... — CPU seconds (user + sys) into NAME, peak RSS (MB) into NAME_rss
t() {
	local name=$1 rc=0; shift
	if [ "${COMPACT:-0}" = 1 ]; then
		echo 1 >/proc/sys/vm/compact_memory || { echo "COMPACT=1 needs root" >&2; exit 1; }
	fi
	/usr/bin/time -f '%U %S %e %M' -o "$W/time" timeout "$PERF_TIMEOUT" "$@" >/dev/null 2>&1 || rc=$?
	[ "$rc" = 124 ] && echo "warning: $* cut off after ${PERF_TIMEOUT}s: its time is a lower bound" >&2
	read -r u s e m < <(tail -1 "$W/time")
	printf -v "$name" '%.2f' "$(echo "$u + $s" | bc -l)"
	printf -v "${name}_wall" '%.1f' "$e"
	printf -v "${name}_rss" '%s' "$((m / 1024))"
}
# tm NAME CMD... — t, each run's figures kept; NAME* set to their medians
tm() {
	local name=$1 v; shift
	t "$name" "$@"
	for v in "" _wall _rss; do
		eval "echo \"\$$name$v\"" >>"$W/$name$v.runs"
		printf -v "$name$v" '%s' "$(sort -n "$W/$name$v.runs" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
	done
}
if [ "${ONLY:-}" != gnone ]; then
	t pk   "$PK" report -i "$DATA"
	t pf   perf report --stdio -i "$DATA"
fi
for _ in $(seq "${RUNS:-1}"); do
	tm pkn  "$PK" report -g none -i "$DATA"
	tm pfn  perf report --stdio -g none -i "$DATA"
	tm pknc "$PK" report -g none --no-children -i "$DATA"
	tm pfnc perf report --stdio -g none --no-children -i "$DATA"
	tm pks  "$PK" report --stats -i "$DATA"
	tm pfs  perf report --stats -i "$DATA"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "${COMPACT:-0}" = 1 ] && echo "(free memory compacted before each command: COMPACT=1)"
printf '%-36s %9s %9s %10s\n' "command" "CPU s" "wall s" "peak MB"
[ "${ONLY:-}" = gnone ] || printf '%-36s %9s %9s %10s\n' \
	"perfkit report" "$pk" "$pk_wall" "$pk_rss" \
	"perf report --stdio" "$pf" "$pf_wall" "$pf_rss"
printf '%-36s %9s %9s %10s\n' \
	"perfkit report -g none" "$pkn" "$pkn_wall" "$pkn_rss" \
	"perf report --stdio -g none" "$pfn" "$pfn_wall" "$pfn_rss" \
	"perfkit report -g none --no-children" "$pknc" "$pknc_wall" "$pknc_rss" \
	"perf report --stdio -g none --no-ch." "$pfnc" "$pfnc_wall" "$pfnc_rss" \
	"perfkit report --stats" "$pks" "$pks_wall" "$pks_rss" \
	"perf report --stats" "$pfs" "$pfs_wall" "$pfs_rss"
[ "${RUNS:-1}" = 1 ] || echo "(-g none rows: medians of ${RUNS} interleaved runs; CPU per run: perfkit $(tr '\n' ' ' <"$W/pkn.runs"), perf $(tr '\n' ' ' <"$W/pfn.runs"))"
r() { printf '%.1f' "$(echo "$1 / $2" | bc -l)"; }
[ "${ONLY:-}" = gnone ] || echo "default: CPU $(r "$pf" "$pk")x less than perf (aim >= 5x), memory 1/$(r "$pf_rss" "$pk_rss") of perf's (aim >= 1/4, < 500 MB: ${pk_rss} MB)"
echo "-g none: CPU $(r "$pfn" "$pkn")x less than perf (aim >= 10x), memory 1/$(r "$pfn_rss" "$pkn_rss") of perf's (${pkn_rss} MB)"
echo "-g none --no-children: CPU $(r "$pfnc" "$pknc")x less than perf, memory 1/$(r "$pfnc_rss" "$pknc_rss") of perf's (${pknc_rss} MB)"
echo "--stats: CPU $(r "$pfs" "$pks")x less than perf, memory 1/$(r "$pfs_rss" "$pks_rss") of perf's (${pks_rss} MB)"
