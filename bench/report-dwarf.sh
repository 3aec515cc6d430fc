#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/report-dwarf.sh [BUILD] — `perfkit report` and `perfkit report --sort
# srcline` against `perf report --stdio` and `perf report --sort srcline` on
# the same --call-graph dwarf recording of a workload spread over several
# DSOs (the program, libc, libm, libz), built -O2 -fomit-frame-pointer -g.
# Prints wall times (best of RUNS), peak RSS (largest over the runs; it
# includes the pages of the mmapped input file) and ratios.
#   SECONDS_REC=N  recording length (default 20)      FREQ=HZ  (default 20000)
#   STACK=BYTES    --call-graph dwarf,BYTES (default 8192)
#   RUNS=N         runs per command (default 3)       PERF_TIMEOUT=S (default 1800)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
PK=$PWD/$BUILD/perfkit
SECONDS_REC=${SECONDS_REC:-20}
FREQ=${FREQ:-20000}
STACK=${STACK:-8192}
RUNS=${RUNS:-3}
PERF_TIMEOUT=${PERF_TIMEOUT:-1800}
W=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
[ -x "$PK" ] || { echo "build $PK first (make BUILD=$BUILD)" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf not installed" >&2; exit 1; }

cat >"$W/wl.c" <<'C'
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
static volatile double dsink;
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static inline __attribute__((always_inline)) double poly(double x) { return x * x * 0.5 + x; }
__attribute__((noinline)) static double mathy(int n) { double s = 0; for (int i = 0; i < n; i++) s += sin(i * 0.001) * exp(-i * 1e-6) + poly(i); return s; }
__attribute__((noinline)) static void sorty(int n) { int *v = malloc(n * sizeof(*v)); for (int i = 0; i < n; i++) v[i] = rand(); qsort(v, n, sizeof(*v), cmp); free(v); }
__attribute__((noinline)) static void zippy(int n) { static unsigned char in[1 << 16], out[1 << 17]; for (int i = 0; i < (int)sizeof(in); i++) in[i] = (unsigned char)(i * 7 ^ n); uLongf ol = sizeof(out); compress(out, &ol, in, sizeof(in)); }
__attribute__((noinline)) static void level(int d, int n) { if (d) { level(d - 1, n); return; } dsink += mathy(n); sorty(n); zippy(n); }
static void *run(void *arg) { time_t end = time(NULL) + *(int *)arg; while (time(NULL) < end) for (int d = 0; d < 12; d++) level(d, 20000); return NULL; }
int main(int argc, char **argv) { int s = argc > 1 ? atoi(argv[1]) : 5; pthread_t t; pthread_create(&t, NULL, run, &s); run(&s); pthread_join(t, NULL); return 0; }
C
cc -O2 -fomit-frame-pointer -g -pthread -o "$W/wl" "$W/wl.c" -lm -lz
"$PK" record -F "$FREQ" --call-graph "dwarf,$STACK" -m 1024 -o "$W/dw.data" "$W/wl" "$SECONDS_REC" >/dev/null 2>"$W/rec.err"
# --stats counts the records without unwinding and gives the exact number
nsamp=$(perf report -i "$W/dw.data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
echo "recording: $(du -h "$W/dw.data" | cut -f1), $nsamp samples, --call-graph dwarf,$STACK, $(tail -1 "$W/rec.err")"

TIMEV=; [ -x /usr/bin/time ] && TIMEV="/usr/bin/time -f %M -o $W/rss"
t() {   # t OUT CMD... — best of RUNS wall times (seconds) into $OUT, peak RSS (MB) into ${OUT}_rss
	local out=$1 best= s e d rc r rss=0; shift
	for _ in $(seq "$RUNS"); do
		rm -f "$W/rss"
		s=$(date +%s.%N); rc=0; $TIMEV timeout "$PERF_TIMEOUT" "$@" >/dev/null 2>&1 || rc=$?; e=$(date +%s.%N)
		[ "$rc" = 124 ] && echo "warning: $* cut off after ${PERF_TIMEOUT}s: its time is a lower bound" >&2
		d=$(echo "$e - $s" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
		r=$(tail -1 "$W/rss" 2>/dev/null | grep -E '^[0-9]+$' || echo 0); [ "$r" -gt "$rss" ] && rss=$r
		[ "$(echo "$d > 60" | bc -l)" = 1 ] && break   # slow peers: one run
	done
	printf -v "$out" '%.3f' "$best"
	printf -v "${out}_rss" '%s' "$([ "$rss" -gt 0 ] && echo "$((rss / 1024)) MB" || echo -)"
}
cat "$W/dw.data" >/dev/null
t pk   "$PK" report -i "$W/dw.data"
t pf   perf report -i "$W/dw.data" --stdio
t pks  "$PK" report -i "$W/dw.data" --sort srcline
t pfs  perf report -i "$W/dw.data" --stdio --sort srcline
printf '%-40s %10s %12s\n' "command" "seconds" "peak RSS" \
	"perfkit report" "$pk" "$pk_rss" "perf report --stdio" "$pf" "$pf_rss" \
	"perfkit report --sort srcline" "$pks" "$pks_rss" "perf report --stdio --sort srcline" "$pfs" "$pfs_rss"
echo "ratio (plain):   $(echo "scale=1; $pf / $pk" | bc -l)x  (aim >= 5x)"
echo "ratio (srcline): $(echo "scale=1; $pfs / $pks" | bc -l)x  (aim >= 20x)"
