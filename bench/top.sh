#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# top — CPU time `perfkit top --stdio -d 0.1` spends per refresh,
# system-wide, with an exec loop running (a new process every few ms: the
# side-band that made the old top's per-refresh cost grow), measured in
# windows of STEP seconds over DURATION seconds, so a cost that grows over
# time shows.  With OLD (another perfkit binary, e.g. one built from an
# older commit) both run in the same session, one after the other, under
# the same load, and the ratio old/new is printed per window.
#   bench/top.sh [BUILD] [OLD_PERFKIT] [DURATION] [STEP]
# OLD_DURATION (default DURATION) limits the old binary's run; EXEC_SLEEP
# (default 0) puts a pause between the loop's processes.
# Prints, per window: refreshes, CPU ms per refresh, CPU ms per second of
# wall time (the refreshes of a starved top come late and cover more), and
# top's RSS (MB).
# Needs perf events (root or perf_event_paranoid <= 1 for system-wide).
set -euo pipefail
BUILD=${1:-build}
OLD=${2:-}
DURATION=${3:-60}
STEP=${4:-10}
cd "$(dirname "$0")/.."
PK=$BUILD/perfkit
TMP=$(mktemp -d)
loop=
trap '[ -n "$loop" ] && kill $loop 2>/dev/null; rm -rf "$TMP"' EXIT
tck=$(getconf CLK_TCK)

# the exec loop: short-lived processes all the time
EXEC_SLEEP=${EXEC_SLEEP:-0}
( while :; do /bin/true; [ "$EXEC_SLEEP" = 0 ] || sleep "$EXEC_SLEEP"; done ) >/dev/null 2>&1 &
loop=$!

# measure BIN LABEL: prints one line per window and the mean of the windows
measure() {
	local bin=$1 label=$2 dur=$3 out=$TMP/$2.out
	"$bin" top --stdio -d 0.1 >"$out" 2>"$TMP/$label.err" &
	local pid=$! t0 c0 r0 t c r
	sleep 1
	read -r c0 < <(awk '{ print $14 + $15 }' /proc/$pid/stat)
	r0=$(grep -c '^# perfkit top:' "$out" || true)
	local sum=0 nwin=0
	for ((t = STEP; t <= dur; t += STEP)); do
		sleep "$STEP"
		if ! kill -0 $pid 2>/dev/null; then echo "$label: top ended early:"; cat "$TMP/$label.err"; return 1; fi
		read -r c < <(awk '{ print $14 + $15 }' /proc/$pid/stat)
		r=$(grep -c '^# perfkit top:' "$out" || true)
		rss=$(awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' /proc/$pid/status)
		local ms
		ms=$(awk -v c=$((c - c0)) -v r=$((r - r0)) -v tck="$tck" 'BEGIN { printf "%.2f", r ? c * 1000 / tck / r : 0 }')
		local pers
		pers=$(awk -v c=$((c - c0)) -v tck="$tck" -v s="$STEP" 'BEGIN { printf "%.1f", c * 1000 / tck / s }')
		printf '%-4s t=%4ds  refreshes %4d  cpu/refresh %8s ms  cpu %6s ms/s  rss %6s MB\n' "$label" "$t" \
			$((r - r0)) "$ms" "$pers" "$rss"
		eval "${label}_w$nwin=$ms"
		sum=$(awk -v a="$sum" -v b="$ms" 'BEGIN { print a + b }')
		nwin=$((nwin + 1))
		c0=$c
		r0=$r
	done
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null || true
	eval "${label}_mean=$(awk -v s="$sum" -v n=$nwin 'BEGIN { printf "%.2f", s / n }')"
	eval "${label}_n=$nwin"
}

echo "# perfkit top --stdio -d 0.1, system-wide, exec loop running; $DURATION s in ${STEP}-s windows"
echo "# load: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
measure "$PK" new "$DURATION"
if [ -n "$OLD" ]; then
	measure "$OLD" old "${OLD_DURATION:-$DURATION}"
	for ((i = 0; i < new_n && i < old_n; i++)); do
		eval "o=\$old_w$i n=\$new_w$i"
		awk -v o="$o" -v n="$n" -v i=$i 'BEGIN { printf "window %d: old/new %.1fx\n", i, (n > 0 ? o / n : 0) }'
	done
	awk -v o="$old_mean" -v n="$new_mean" 'BEGIN { printf "mean cpu/refresh: new %.2f ms, old %.2f ms, old/new %.1fx\n", n, o, (n > 0 ? o / n : 0) }'
else
	echo "mean cpu/refresh: new $new_mean ms"
fi
