#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/selfprofile.sh [BUILD] — a CPU profile of perfkit by perfkit under
# the main command of each benchmark in docs/PERFORMANCE.md, so the next
# bottleneck is visible.  For each: `perfkit record -F $FREQ -g -o X.data --
# CMD`, then `perfkit report --no-children -g none -q -n --sort comm,sym -i
# X.data`, of which the top 5 functions of perfkit's own process (comm
# perfkit; for cache, c2c and calibrate also its Valgrind tool, pkcache-*;
# for the symbol lookups, the unit test that times them) are
# printed with their share of that process's samples, and the share of all
# the run's samples that process took (the rest is the program a command
# runs or other processes).
#   ONLY="collapse report ..."  run only these names (see the list below)
#   FREQ=HZ        sampling frequency (default 2999)
#   REAL_DIR=dir   the real-profile inputs (default: bench/real-inputs.sh's,
#                  recorded once if absent: a few minutes)
# Prints one block per benchmark; the command each ran comes first.
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
TOP=$PWD
PK=$TOP/$BUILD/perfkit
EX=$TOP/$BUILD/examples
WL=$TOP/$BUILD/tests/workloads
FREQ=${FREQ:-2999}
C=${SHARED:-$(cd .. && pwd)/shared}/conformance/collapse-perf/inputs
[ -x "$PK" ] || { echo "build $PK first (make BUILD=$BUILD)" >&2; exit 1; }
make -s BUILD="$BUILD" "$BUILD/tests/unit/test_symbol" "$BUILD/examples/matmul" "$BUILD/examples/falseshare" \
	"$BUILD/tests/workloads/calltree" "$BUILD/tests/workloads/burn2to1" >/dev/null
W=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-selfprof.XXXXXX")
trap 'rm -rf "$W"' EXIT
eval "$(bash bench/real-inputs.sh "$BUILD" 2>/dev/null | tail -1)"
REAL=$REAL_DIR

want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }

# prof NAME COMM CMD... — record CMD, print the top 5 of the processes whose
# comm matches the awk regex COMM
prof() {
	local name=$1 comm=$2; shift 2
	want "$name" || return 0
	echo "## $name: $*" | sed "s#$TOP/##g; s#$W/##g; s#$REAL/#REAL/#g"
	"$PK" record -F "$FREQ" -g -o "$W/$name.data" -- "$@" >/dev/null 2>"$W/$name.err" </dev/null || true
	if [ ! -s "$W/$name.data" ]; then
		echo "   (no profile: $(tail -1 "$W/$name.err"))"
		return 0
	fi
	"$PK" report --no-children -g none -q -n --sort comm,sym --stdio -i "$W/$name.data" 2>/dev/null |
	awk -v comm="$comm" '
		{ all += $2 }
		$3 ~ comm { n[++k] = $2; s = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +\[.\] /, "", s); sym[k] = s; own += $2 }
		END {
			if (!own) { printf "   (no samples of %s among %d)\n", comm, all; exit }
			for (i = 1; i <= k && i <= 5; i++)
				printf "   %5.1f%%  %s\n", 100 * n[i] / own, sym[i]
			printf "   (%d samples of %s: %.1f%% of the run'"'"'s %d)\n", own, comm, 100 * own / all, all
		}'
}

# inputs
if want collapse-synthetic; then
	for f in "$C"/*; do
		case $f in *.gz) gzip -dc "$f" ;; *) cat "$f" ;; esac
		printf '\n\n'
	done | sed -E '/^[^[:space:]#]/s/ [^ ]+:[[:space:]]*$/ cpu-clock:/' >"$W/round.txt"
	for _ in $(seq 40); do cat "$W/round.txt"; done >"$W/synth.txt"
fi
"$PK" record -F 999 -g -o "$W/burn.data" -- "$WL/burn2to1" 3000 >/dev/null 2>&1
"$PK" record -g -F 20000 -o "$W/calltree.data" -- "$WL/calltree" 30000 >/dev/null 2>&1
if want report-dwarf; then
	"$PK" record -F 999 --call-graph dwarf -o "$W/dw.data" -- "$WL/calltree" 5000 >/dev/null 2>&1
fi

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc --all) CPUs; perfkit $(git rev-parse --short HEAD 2>/dev/null)"
prof record '^perfkit$' "$PK" record -F 999 -g -o "$W/rec.data" -- "$EX/matmul" naive 20
prof report-real '^perfkit$' "$PK" report --stdio -i "$REAL/real.data"
prof report-real-g-none '^perfkit$' "$PK" report --stdio -g none -i "$REAL/real.data"
prof script '^perfkit$' sh -c "'$PK' script -i '$REAL/real.data' >/dev/null"
prof symbols '^test_symbol$' env PERFKIT_BENCH=1 "$TOP/$BUILD/tests/unit/test_symbol"
prof collapse-real '^perfkit$' "$PK" collapse "$REAL/real.script"
prof collapse-real-pipe '^perfkit$' sh -c "cat '$REAL/real.script' | '$PK' collapse"
prof collapse-synthetic '^perfkit$' "$PK" collapse "$W/synth.txt"
prof flamegraph '^perfkit$' "$PK" flamegraph --hash "$REAL/real.folded" -o "$W/f.svg"
prof flamegraph-perfdata '^perfkit$' "$PK" flamegraph "$REAL/real.data" -o "$W/g.svg"
prof top '^perfkit$' timeout -s INT 8 "$PK" top --stdio -d 0.1
prof report-pipe '^perfkit$' sh -c "cat '$W/calltree.data' | '$PK' report --stdio -i - >/dev/null"
prof memory '^perfkit$' "$PK" report --stdio -i "$W/burn.data"
prof stat '^perfkit$' "$PK" stat -r 200 true
prof bench '^perfkit$' "$PK" bench -N -w 0 -r 200 true
prof ebpf-execsnoop '^perfkit$' sh -c "'$PK' execsnoop >/dev/null & p=\$!; sleep 2; for i in \$(seq 2000); do /bin/true; done; kill -INT \$p; wait \$p"
prof profile-continuous '^perfkit$' timeout -s INT 8 "$PK" profile --continuous -F 19 --interval 2 --output-dir "$W/prof" --max-files 3
prof cache '^(pkcache|perfkit)' "$PK" cache -q --model=cachegrind --branch-sim=yes --I1=32768,8,64 --D1=49152,12,64 --LL=33554432,16,64 -o "$W/c.out" "$EX/matmul" ikj 1
prof c2c '^(pkcache|perfkit)' "$PK" c2c record -o "$W/c2c.out" -- "$EX/falseshare" shared 200000
prof calibrate '^(pkcache|perfkit)' "$PK" calibrate --scale 0.05 --max-size 8M -r 1 --no-save
prof report-dwarf '^perfkit$' "$PK" report --stdio -i "$W/dw.data"
prof annotate '^perfkit$' "$PK" annotate -i "$W/calltree.data" --stdio
prof report-html '^perfkit$' "$PK" report --html -o "$W/p.html" -i "$REAL/real.data"
prof tui '^perfkit$' sh -c "(sleep 6; printf q) | TERM=xterm script -qfec \"'$PK' report -i '$W/calltree.data'\" /dev/null >/dev/null"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
