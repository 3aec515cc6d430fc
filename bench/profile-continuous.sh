#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# profile-continuous — the always-on profile's cost and memory over a long
# run: `perfkit profile --continuous -F 19 --interval 10` runs for SECS
# seconds (default 300) while a loop execs /bin/true about 100 times a
# second (new processes to snapshot all the time); every 10 s its VmRSS is
# read.  Printed: the VmRSS series, its first and last values and peak, the
# files written, and the profiler's CPU time (user + sys from
# /proc/PID/stat) as % of one CPU and as CPU seconds per core-hour (per CPU
# sampled).  The same exec loop runs under bpftrace's profile:hz:19 with
# stack aggregation for the same time, in the same run, for its CPU.
# Needs root.  Usage: bench/profile-continuous.sh [BUILD] [SECS]
set -euo pipefail
BUILD=${1:-build}
SECS=${2:-300}
PK=$(cd "$BUILD" && pwd)/perfkit
TMP=$(mktemp -d)
TRACER= LOOP=
cleanup() {
	[ -n "$TRACER" ] && kill -INT "$TRACER" 2>/dev/null
	[ -n "$LOOP" ] && kill "$LOOP" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
if [ "$(id -u)" != 0 ]; then
	echo "profile-continuous: needs root (CAP_BPF and CAP_PERFMON); skipped" >&2
	exit 0
fi
NCPU=$(getconf _NPROCESSORS_ONLN)
HZ=$(getconf CLK_TCK)

cpu_s() { awk -v hz="$HZ" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

start_loop() { ( while :; do /bin/true; sleep 0.01; done ) & LOOP=$!; }
stop_loop() { kill "$LOOP" 2>/dev/null; wait "$LOOP" 2>/dev/null || true; LOOP=; }

# perfkit
start_loop
"$PK" profile --continuous -F 19 --interval 10 --output-dir "$TMP/prof" --max-files 6 \
	>"$TMP/out" 2>"$TMP/err" &
TRACER=$!
for i in $(seq 100); do grep -q 'Hit Ctrl-C' "$TMP/err" 2>/dev/null && break; sleep 0.1; done
series=()
for ((t = 10; t <= SECS; t += 10)); do
	sleep 10
	series+=("$(rss "$TRACER")")
done
pk_cpu=$(cpu_s "$TRACER")
kill -INT "$TRACER"; wait "$TRACER" || true; TRACER=
stop_loop
files=$(grep -o '[0-9]* files written' "$TMP/err" || echo '? files written')

# bpftrace, same loop, same time
bt_cpu=skipped
if command -v bpftrace >/dev/null 2>&1; then
	start_loop
	bpftrace -e 'profile:hz:19 { @[ustack, kstack, pid, comm] = count(); }' >"$TMP/bt" 2>&1 &
	TRACER=$!
	for i in $(seq 300); do grep -q Attaching "$TMP/bt" 2>/dev/null && break; sleep 0.1; done
	sleep "$SECS"
	bt_cpu=$(cpu_s "$TRACER")
	kill -INT "$TRACER"; wait "$TRACER" || true; TRACER=
	stop_loop
fi

echo "VmRSS every 10 s (kB): ${series[*]}"
n=${#series[@]}
peak=$(printf '%s\n' "${series[@]}" | sort -n | tail -1)
echo "VmRSS first ${series[0]} kB, last ${series[n - 1]} kB, peak $peak kB; $files"
awk -v c="$pk_cpu" -v s="$SECS" -v n="$NCPU" 'BEGIN {
	printf "perfkit profile --continuous -F 19: %.2f CPU s in %d s = %.3f %% of one CPU = %.1f CPU s per core-hour (%d CPUs)\n",
		c, s, c / s * 100, c / s * 3600 / n, n }'
[ "$bt_cpu" != skipped ] && awk -v c="$bt_cpu" -v s="$SECS" -v n="$NCPU" 'BEGIN {
	printf "bpftrace profile:hz:19 @[ustack,kstack,pid,comm]: %.2f CPU s in %d s = %.3f %% of one CPU = %.1f CPU s per core-hour\n",
		c, s, c / s * 100, c / s * 3600 / n }'
echo "(load average during the run: $(cut -d' ' -f1-3 /proc/loadavg))"
