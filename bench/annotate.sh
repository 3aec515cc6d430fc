#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/annotate.sh [BUILD] — annotate the ten hottest functions of a
# perf.data of about 1 M samples: perfkit annotate (one run, ten SYMBOLs)
# against perf annotate --stdio on the same file (one run per symbol, as
# perf takes one; and, for reference, one run over every symbol).  The
# workload is generated here: twelve functions of different weights,
# built -O2 -g.  Prints the times and the ratio.
#   SAMPLES=N   about how many samples to record (default 1000000)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
PK=$PWD/$BUILD/perfkit
SAMPLES=${SAMPLES:-1000000}
W=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

[ -x "$PK" ] || { echo "build $PK first (make BUILD=$BUILD)" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is not installed: no peer to compare with" >&2; exit 1; }

# twelve hot functions, f1 .. f12, weight k each
{
	echo '#include <stdlib.h>'
	echo '#include <time.h>'
	echo 'static volatile double sink;'
	for k in $(seq 1 12); do
		cat <<EOC
__attribute__((noinline)) void f$k(long n)
{
	double x = $k.0;
	for (long i = 0; i < n * $k; i++)
		x = x * 0.9999 + (double)(i & $((k * 7))) / (x + $k.5);
	sink = x;
}
EOC
	done
	echo 'static double cpu(void)'
	echo '{'
	echo '	struct timespec t;'
	echo '	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);'
	echo '	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;'
	echo '}'
	echo 'int main(int argc, char **argv)'
	echo '{'
	echo '	double secs = argc > 1 ? atof(argv[1]) : 1, t0 = cpu();'
	echo '	while (cpu() - t0 < secs) {'
	for k in $(seq 1 12); do echo "		f$k(20000);"; done
	echo '	}'
	echo '	return 0;'
	echo '}'
} >"$W/hot.c"
cc -O2 -g -fno-omit-frame-pointer -o "$W/hot" "$W/hot.c"

# one sample per 10 us of CPU time, of which the kernel delivers about
# 70 %: SAMPLES / 70000 seconds of CPU
perf record -q -e cpu-clock -c 10000 -o "$W/perf.data" -- "$W/hot" "$(echo "$SAMPLES / 70000" | bc -l)" \
	>/dev/null 2>&1
nsamples=$(perf report -i "$W/perf.data" --stdio 2>/dev/null | sed -n 's/^# Samples: \([0-9.]*[KM]*\).*/\1/p' | head -1)
syms=$("$PK" report -i "$W/perf.data" --no-children --sort sym 2>/dev/null |
	sed -n 's/^ *[0-9.]*%  \[\.\] \([^ ]*\)$/\1/p' | head -10)
echo "perf.data: $nsamples samples; the ten hottest functions: $(echo $syms)"

# t OUT CMD... — one run, output discarded: "WALL CPU" seconds into OUT
# (CPU: user + system time of the run and its children — perf's objdump)
t() {
	local out=$1; shift
	/usr/bin/time -f '%e %U %S' -o "$W/time" "$@" >/dev/null 2>&1 || true
	printf -v "$out" '%s' "$(tail -1 "$W/time" | awk '{ printf "%.3f %.3f", $1, $2 + $3 }')"
}
pk_ten() { "$PK" annotate -i "$W/perf.data" --stdio $syms; }
perf_ten() { for f in $syms; do perf annotate --stdio -i "$W/perf.data" "$f"; done; }
perf_all() { perf annotate --stdio -i "$W/perf.data"; }
export -f pk_ten perf_ten perf_all
export W PK syms
cat "$W/perf.data" >/dev/null
best() { # best OUT FN — best of 3 (by CPU)
	local out=$1 r b=; shift
	for _ in 1 2 3; do
		t r bash -c "$1"
		if [ -z "$b" ] || [ "$(echo "${r#* } < ${b#* }" | bc -l)" = 1 ]; then b=$r; fi
	done
	printf -v "$out" '%s' "$b"
}
best T_PK pk_ten
best T_PERF perf_ten
t T_ALL bash -c perf_all
row() { printf '%-48s %8s s wall %8s s CPU\n' "$1" "${2% *}" "${2#* }"; }
row "perfkit annotate (ten symbols, one run)" "$T_PK"
row "perf annotate --stdio (once per symbol)" "$T_PERF"
row "perf annotate --stdio (every symbol, one run)" "$T_ALL"
printf 'ratio (CPU): perfkit %.1fx faster than perf annotate on the ten symbols (%.1fx against its one run over every symbol)\n' \
	"$(echo "${T_PERF#* } / ${T_PK#* }" | bc -l)" "$(echo "${T_ALL#* } / ${T_PK#* }" | bc -l)"
printf 'ratio (wall): %.1fx (%.1fx)\n' \
	"$(echo "${T_PERF% *} / ${T_PK% *}" | bc -l)" "$(echo "${T_ALL% *} / ${T_PK% *}" | bc -l)"
