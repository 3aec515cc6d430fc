#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/collapse.sh [BUILD] — perfkit collapse vs FlameGraph's
# stackcollapse-perf.pl (and inferno-collapse-perf when installed) on
# `perf script` text, `wc -l` on the same file being the floor.  Prints wall
# and CPU times (user + system: CPU time moves much less than wall time on a
# shared machine), peak memory and the ratios, and the load.
#   (default)        ~200 MB of text made of the conformance inputs repeated
#   REAL=1           the text of a real profile (bench/real-inputs.sh: perf
#                    script of perf record -g of parallel builds of perfkit)
#   INPUT=FILE       that perf script text
#   FLAMEGRAPH=dir   a FlameGraph checkout (else ../FlameGraph, /tmp/FlameGraph,
#                    or PATH); the Perl peer is skipped with a note if absent.
#   SIZE_MB=N        synthetic input size (default 200)
#   RUNS=N           best of N runs (default 3)
# perfkit parses text on one worker thread per CPU it may use (plus the
# reader); "per thread" divides its CPU time by the workers, the time each
# would take on a core of its own.
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
PK=$PWD/$BUILD/perfkit
C=${SHARED:-$(cd .. && pwd)/shared}/conformance/collapse-perf/inputs
SIZE_MB=${SIZE_MB:-200}
W=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

[ -x "$PK" ] || { echo "build $PK first (make BUILD=$BUILD)" >&2; exit 1; }
if [ -n "${INPUT:-}" ] || [ "${REAL:-0}" = 1 ]; then
	if [ -z "${INPUT:-}" ]; then
		eval "$(bash bench/real-inputs.sh "$BUILD" | tail -1)"
		INPUT=$REAL_DIR/real.script
	fi
	ln -s "$(readlink -f "$INPUT")" "$W/in.txt"
else
[ -d "$C" ] || { echo "no conformance inputs at $C" >&2; exit 1; }

# one round of every input, each closed by a blank line; every sample's
# event renamed cpu-clock, so that all samples count (by default both tools
# keep only the first event type seen)
for f in "$C"/*; do
	case $f in *.gz) gzip -dc "$f" ;; *) cat "$f" ;; esac
	printf '\n\n'
done | sed -E '/^[^[:space:]#]/s/ [^ ]+:[[:space:]]*$/ cpu-clock:/' >"$W/round.txt"
round=$(stat -c %s "$W/round.txt")
n=$(( (SIZE_MB * 1024 * 1024 + round - 1) / round ))
for _ in $(seq "$n"); do cat "$W/round.txt"; done >"$W/in.txt"
fi
size=$(stat -L -c %s "$W/in.txt")
cat "$W/in.txt" >/dev/null   # warm the page cache

RUNS=${RUNS:-3}
# t OUT CMD... — best of RUNS (bench/lib/rtime.c): wall seconds into OUT,
# CPU seconds (user + system) into OUT_cpu, peak RSS (MB) into OUT_mb
t() {
	local out=$1 best= bcpu= bmb= u s e m; shift
	for _ in $(seq "$RUNS"); do
		"$W/rtime" "$W/tm" "$@" >/dev/null 2>&1 || true
		read -r u s e m < <(tail -1 "$W/tm")
		local c; c=$(echo "$u + $s" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$e < $best" | bc -l)" = 1 ]; then best=$e; fi
		if [ -z "$bcpu" ] || [ "$(echo "$c < $bcpu" | bc -l)" = 1 ]; then bcpu=$c; fi
		bmb=$m
		[ "$(echo "$e > 20" | bc -l)" = 1 ] && break   # slow peers: one run
	done
	printf -v "$out" '%.4f' "$best"
	printf -v "${out}_cpu" '%.4f' "$bcpu"
	printf -v "${out}_mb" '%.1f' "$(echo "$bmb / 1024" | bc -l)"
}
mbps() { echo "scale=1; $size / 1048576 / $1" | bc -l; }
r() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }
# times to the microsecond: GNU time's hundredths are 0 for wc -l of 50 MB
${CC:-cc} -O2 -o "$W/rtime" bench/lib/rtime.c
NW=$(nproc)   # worker threads: one per usable CPU

printf 'input: %s MB of perf script text (%s lines)\n' "$((size / 1048576))" "$(wc -l <"$W/in.txt")"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc --all) CPUs"
t T_WC wc -l "$W/in.txt"
t T_PK "$PK" collapse "$W/in.txt"
pipe_pk() { cat "$W/in.txt" | "$W/rtime" "$W/tmp1" "$PK" collapse >/dev/null 2>&1; }
best_pc=; best_pe=
for _ in $(seq "$RUNS"); do
	s0=$(date +%s.%N); pipe_pk; e0=$(date +%s.%N)
	read -r u s e m < <(tail -1 "$W/tmp1")
	c=$(echo "$u + $s" | bc -l); e=$(echo "$e0 - $s0" | bc -l)
	if [ -z "$best_pc" ] || [ "$(echo "$c < $best_pc" | bc -l)" = 1 ]; then best_pc=$c; fi
	if [ -z "$best_pe" ] || [ "$(echo "$e < $best_pe" | bc -l)" = 1 ]; then best_pe=$e; fi
	M_PP=$(echo "$m / 1024" | bc -l)
done
printf '%-30s %8s %8s %9s %9s\n' "" "wall s" "CPU s" "MB/s" "peak MB"
printf '%-30s %8s %8s %9s %9.1f\n' "wc -l (floor)" "$T_WC" "$T_WC_cpu" "$(mbps "$T_WC")" "$T_WC_mb"
printf '%-30s %8s %8s %9s %9.1f\n' "perfkit collapse FILE" "$T_PK" "$T_PK_cpu" "$(mbps "$T_PK")" "$T_PK_mb"
printf '%-30s %8.4f %8.4f %9s %9.1f\n' "cat FILE | perfkit collapse" "$best_pe" "$best_pc" "$(mbps "$best_pe")" "$M_PP"
echo "perfkit, CPU time against wc -l's: FILE $(r "$T_PK_cpu" "$T_WC_cpu")x in all, $(r "$(echo "$T_PK_cpu / $NW" | bc -l)" "$T_WC_cpu")x per worker thread ($NW) (aim: 2.5x); pipe $(r "$best_pc" "$T_WC_cpu")x in all, $(r "$(echo "$best_pc / $NW" | bc -l)" "$T_WC_cpu")x per worker thread (aim: 4x)"
echo "perfkit, wall time against wc -l's: FILE $(r "$T_PK" "$T_WC")x, pipe $(r "$best_pe" "$T_WC")x (both move with the load)"

FG=
for d in "${FLAMEGRAPH:-}" ../FlameGraph /tmp/FlameGraph; do
	[ -n "$d" ] && [ -f "$d/stackcollapse-perf.pl" ] && { FG=$d/stackcollapse-perf.pl; break; }
done
[ -z "$FG" ] && FG=$(command -v stackcollapse-perf.pl || true)
if [ -n "$FG" ] && command -v perl >/dev/null; then
	RUNS=1 t T_PL perl "$FG" "$W/in.txt"
	printf '%-30s %8s %8s %9s %9.1f  perfkit: %sx faster (wall), %sx less CPU (file); %sx less CPU (pipe)\n' \
		"stackcollapse-perf.pl" "$T_PL" "$T_PL_cpu" "$(mbps "$T_PL")" "$T_PL_mb" "$(r "$T_PL" "$T_PK")" \
		"$(r "$T_PL_cpu" "$T_PK_cpu")" "$(r "$T_PL_cpu" "$best_pc")"
	perl "$FG" "$W/in.txt" 2>/dev/null >"$W/pl.out"
	"$PK" collapse "$W/in.txt" 2>/dev/null >"$W/pk.out"
	if cmp -s "$W/pl.out" "$W/pk.out"; then echo "outputs: identical"; else echo "outputs: DIFFER (see the conformance README corrections)"; fi
else
	echo "stackcollapse-perf.pl: skipped (set FLAMEGRAPH=dir of a FlameGraph checkout)"
fi
if command -v inferno-collapse-perf >/dev/null; then
	t T_IN inferno-collapse-perf "$W/in.txt"
	printf '%-30s %8s %8s  perfkit is %sx faster\n' "inferno-collapse-perf" "$T_IN" "$T_IN_cpu" "$(r "$T_IN" "$T_PK")"
else
	echo "inferno-collapse-perf: skipped (not installed)"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
