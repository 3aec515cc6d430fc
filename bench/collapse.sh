#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/collapse.sh [BUILD] — perfkit collapse vs FlameGraph's
# stackcollapse-perf.pl (and inferno-collapse-perf when installed) on a
# ~200 MB `perf script` text made of the conformance inputs repeated;
# `wc -l` on the same file is the floor.  Prints times and ratios.
#   FLAMEGRAPH=dir   a FlameGraph checkout (else ../FlameGraph, /tmp/FlameGraph,
#                    or PATH); the Perl peer is skipped with a note if absent.
#   SIZE_MB=N        input size (default 200)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
PK=$PWD/$BUILD/perfkit
C=${SHARED:-$(cd .. && pwd)/shared}/conformance/collapse-perf/inputs
SIZE_MB=${SIZE_MB:-200}
W=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

[ -x "$PK" ] || { echo "build $PK first (make BUILD=$BUILD)" >&2; exit 1; }
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
size=$(stat -c %s "$W/in.txt")
cat "$W/in.txt" >/dev/null   # warm the page cache

t() {   # t OUT CMD... — best of 3 wall times (seconds) into $OUT
	local out=$1 best= s e d; shift
	for _ in 1 2 3; do
		s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
		d=$(echo "$e - $s" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
		[ "$(echo "$d > 20" | bc -l)" = 1 ] && break   # slow peers: one run
	done
	printf -v "$out" '%.3f' "$best"
}
mbps() { echo "scale=1; $size / 1048576 / $1" | bc -l; }
# peak OUT CMD... — peak resident memory (MB, /usr/bin/time -f %M) of one run
peak() {
	local out=$1; shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$W/mem" "$@" >/dev/null 2>&1 || true
		printf -v "$out" '%.1f' "$(echo "$(tail -1 "$W/mem") / 1024" | bc -l)"
	else
		printf -v "$out" '%s' '?'
	fi
}

printf 'input: %s MB of perf script text (%s lines)\n' "$((size / 1048576))" "$(wc -l <"$W/in.txt")"
t T_WC wc -l "$W/in.txt"
t T_PK "$PK" collapse "$W/in.txt"
pipe1() { cat "$W/in.txt" | "$PK" collapse; }   # a pipe is parsed on one thread
t T_P1 pipe1
peak M_WC wc -l "$W/in.txt"
peak M_PK "$PK" collapse "$W/in.txt"
peak M_P1 sh -c 'cat "$2" | "$1" collapse' sh "$PK" "$W/in.txt"   # largest process of the pipe
printf '%-28s %8ss %8s MB/s  peak %s MB\n' "wc -l (floor)" "$T_WC" "$(mbps "$T_WC")" "$M_WC"
printf '%-28s %8ss %8s MB/s  peak %s MB  (%.1fx the floor; %s CPUs)\n' "perfkit collapse FILE" "$T_PK" \
	"$(mbps "$T_PK")" "$M_PK" "$(echo "$T_PK / $T_WC" | bc -l)" "$(nproc)"
printf '%-28s %8ss %8s MB/s  peak %s MB  (%.1fx the floor)\n' "cat FILE | perfkit collapse" \
	"$T_P1" "$(mbps "$T_P1")" "$M_P1" "$(echo "$T_P1 / $T_WC" | bc -l)"

FG=
for d in "${FLAMEGRAPH:-}" ../FlameGraph /tmp/FlameGraph; do
	[ -n "$d" ] && [ -f "$d/stackcollapse-perf.pl" ] && { FG=$d/stackcollapse-perf.pl; break; }
done
[ -z "$FG" ] && FG=$(command -v stackcollapse-perf.pl || true)
if [ -n "$FG" ] && command -v perl >/dev/null; then
	t T_PL perl "$FG" "$W/in.txt"
	peak M_PL perl "$FG" "$W/in.txt"
	printf '%-28s %8ss %8s MB/s  peak %s MB  perfkit is %.1fx faster (%.1fx on one thread)\n' \
		"stackcollapse-perf.pl" "$T_PL" "$(mbps "$T_PL")" "$M_PL" "$(echo "$T_PL / $T_PK" | bc -l)" \
		"$(echo "$T_PL / $T_P1" | bc -l)"
	perl "$FG" "$W/in.txt" 2>/dev/null >"$W/pl.out"
	"$PK" collapse "$W/in.txt" 2>/dev/null >"$W/pk.out"
	if cmp -s "$W/pl.out" "$W/pk.out"; then echo "outputs: identical"; else echo "outputs: DIFFER (see the conformance README corrections)"; fi
else
	echo "stackcollapse-perf.pl: skipped (set FLAMEGRAPH=dir of a FlameGraph checkout)"
fi
if command -v inferno-collapse-perf >/dev/null; then
	t T_IN inferno-collapse-perf "$W/in.txt"
	printf '%-28s %8ss %8s MB/s  perfkit is %.1fx faster\n' "inferno-collapse-perf" "$T_IN" \
		"$(mbps "$T_IN")" "$(echo "$T_IN / $T_PK" | bc -l)"
else
	echo "inferno-collapse-perf: skipped (not installed)"
fi
