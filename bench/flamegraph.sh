#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# flamegraph — how fast is `perfkit flamegraph` next to FlameGraph's
# flamegraph.pl (and inferno-flamegraph when installed)?  Builds a large
# folded profile from the shared conformance inputs (every stack repeated
# with perturbed frame names, DISTINCT stacks in all), renders it with each
# tool in the same run (best of RUNS wall times; flamegraph.pl once), checks
# that perfkit and flamegraph.pl drew the same frames, and prints ratios.
#   bench/flamegraph.sh [BUILD] [DISTINCT] [RUNS]
# SHUFFLE=1 shuffles the lines (a worst case for perfkit's natural merge
# sort; collapsed files are normally sorted or made of sorted parts).
# REAL=1 draws the folded stacks of a real profile instead (bench/real-inputs.sh:
# a perf record -g of parallel builds of perfkit); INPUT=FILE draws FILE.
# flamegraph.pl is looked for in $FLAMEGRAPH_DIR, then /tmp/FlameGraph and
# /tmp/fg (a checkout of github.com/brendangregg/FlameGraph); without it
# that peer is skipped with a message.
set -euo pipefail
BUILD=${1:-build}
DISTINCT=${2:-300000}
RUNS=${3:-3}
cd "$(dirname "$0")/.."
PK=$BUILD/perfkit
IN=../shared/conformance/flamegraph/inputs
[ -d "$IN" ] || IN=${SHARED:-../shared}/conformance/flamegraph/inputs
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

FGPL=
for d in "${FLAMEGRAPH_DIR:-}" /tmp/FlameGraph /tmp/fg; do
	if [ -n "$d" ] && [ -f "$d/flamegraph.pl" ]; then FGPL=$d/flamegraph.pl; break; fi
done

if [ "${REAL:-0}" = 1 ] && [ -z "${INPUT:-}" ]; then
	eval "$(bash bench/real-inputs.sh "$BUILD" | tail -1)"
	INPUT=$REAL_DIR/real.folded
fi
if [ -n "${INPUT:-}" ]; then
	cp "$INPUT" "$TMP/big.txt"
	echo "input: $INPUT, $(wc -l <"$TMP/big.txt") lines, $(du -m "$TMP/big.txt" | cut -f1) MB"
	echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc --all) CPUs"
else
# Input: the single-count conformance profiles, each stack copied with a
# numbered variant of its leaf and of one middle frame, until DISTINCT.
cat "$IN"/vertx-sorted/*.txt "$IN"/colors-java/*.txt "$IN"/colors-js/*.txt \
	"$IN"/numa-tid-width-minwidth/*.txt "$IN"/flamechart/*.txt \
	| grep -E '^.+ [0-9]+$' | sort -u >"$TMP/base.txt"
base=$(wc -l <"$TMP/base.txt")
awk -v want="$DISTINCT" -v base="$base" '
	{ line[NR] = $0 }
	END {
		srand(42)
		reps = int((want + base - 1) / base)
		n = 0
		for (r = 0; r < reps && n < want; r++) {
			for (i = 1; i <= base && n < want; i++) {
				l = line[i]; sp = match(l, / [0-9]+$/)
				stack = substr(l, 1, sp - 1); count = substr(l, sp + 1)
				k = split(stack, f, ";")
				if (k > 2) f[int(k / 2)] = f[int(k / 2)] "_v" (r % 97)
				f[k] = f[k] "_" r
				s = f[1]; for (j = 2; j <= k; j++) s = s ";" f[j]
				print s " " (count + int(rand() * 50))
				n++
			}
		}
	}' "$TMP/base.txt" >"$TMP/big.txt"
if [ "${SHUFFLE:-0}" = 1 ]; then
	shuf --random-source=<(yes) "$TMP/big.txt" >"$TMP/shuf.txt" && mv "$TMP/shuf.txt" "$TMP/big.txt"
fi
lines=$(wc -l <"$TMP/big.txt")
size=$(du -m "$TMP/big.txt" | cut -f1)
echo "input: $lines distinct stacks, ${size} MB (from $base conformance stacks)$([ "${SHUFFLE:-0}" = 1 ] && echo ', shuffled')"
fi

# best wall time (seconds) of N runs of a command writing to $TMP/out.svg
best_of() {
	local n=$1 best= t; shift
	for _ in $(seq "$n"); do
		local s e
		s=$(date +%s.%N)
		"$@" >"$TMP/out.svg" 2>/dev/null
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
	done
	printf '%.3f' "$best"
}

# peak resident memory (MB) of one run, by /usr/bin/time -f %M
peak() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$TMP/mem" "$@" >/dev/null 2>&1 || true
		printf '%.1f' "$(echo "$(tail -1 "$TMP/mem") / 1024" | bc -l)"
	else
		printf '?'
	fi
}
bytes=$(stat -c %s "$TMP/big.txt")
mbps() { printf '%.1f' "$(echo "$bytes / 1048576 / $1" | bc -l)"; }
cat "$TMP/big.txt" >/dev/null   # warm the page cache

wc=$(best_of "$RUNS" wc -l "$TMP/big.txt")
printf '%-22s %8.3f s  %8s MB/s  peak %s MB\n' "wc -l (floor)" "$wc" "$(mbps "$wc")" \
	"$(peak wc -l "$TMP/big.txt")"
pk=$(best_of "$RUNS" "$PK" flamegraph --hash "$TMP/big.txt")
cp "$TMP/out.svg" "$TMP/pk.svg"
printf '%-22s %8.3f s  %8s MB/s  peak %s MB  %.1fx the floor  (%s KB of SVG)\n' "perfkit flamegraph" \
	"$pk" "$(mbps "$pk")" "$(peak "$PK" flamegraph --hash "$TMP/big.txt")" "$(echo "$pk / $wc" | bc -l)" \
	"$(du -k "$TMP/pk.svg" | cut -f1)"

if [ -n "$FGPL" ]; then
	pl=$(best_of 1 perl "$FGPL" --hash "$TMP/big.txt")
	cp "$TMP/out.svg" "$TMP/pl.svg"
	printf '%-22s %8.3f s  %8s MB/s  peak %s MB  ratio %.1fx\n' "flamegraph.pl" "$pl" "$(mbps "$pl")" \
		"$(peak perl "$FGPL" --hash "$TMP/big.txt")" "$(echo "$pl / $pk" | bc -l)"
	fgframes=../shared/tools/fgframes
	if [ -x "$(command -v python3)" ] && [ -f "$fgframes" ]; then
		if diff -q <(python3 "$fgframes" "$TMP/pl.svg") <(python3 "$fgframes" "$TMP/pk.svg") >/dev/null; then
			echo "frames: identical to flamegraph.pl's (fgframes)"
		else
			echo "frames: DIFFER from flamegraph.pl's (fgframes)"
		fi
	fi
else
	echo "flamegraph.pl: skipped (no FlameGraph checkout in \$FLAMEGRAPH_DIR, /tmp/FlameGraph or /tmp/fg)"
fi

if command -v inferno-flamegraph >/dev/null 2>&1; then
	inf=$(best_of "$RUNS" inferno-flamegraph --hash "$TMP/big.txt")
	printf '%-22s %8.3f s  ratio %.1fx\n' "inferno-flamegraph" "$inf" "$(echo "$inf / $pk" | bc -l)"
else
	echo "inferno-flamegraph: skipped (not installed; cargo install inferno)"
fi
