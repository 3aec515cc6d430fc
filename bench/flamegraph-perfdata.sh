#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# flamegraph-perfdata — perf.data → SVG (`perfkit flamegraph perf.data`)
# and perf.data → folded (`perfkit collapse perf.data`) with this build
# and with OLD (another perfkit binary, e.g. built from an older commit),
# in the same run, alternating, best of RUNS: wall and CPU (user + sys)
# seconds and the ratios old/new; checks that both draw the same frames
# (../shared/tools/fgframes) and the same folded stacks.
#   bench/flamegraph-perfdata.sh [BUILD] OLD_PERFKIT [PERF.DATA] [RUNS]
# PERF.DATA defaults to /work/big/big.data (2.4 M samples, -g).
set -euo pipefail
BUILD=${1:-build}
OLD=${2:?usage: bench/flamegraph-perfdata.sh BUILD OLD_PERFKIT [PERF.DATA] [RUNS]}
DATA=${3:-/work/big/big.data}
RUNS=${4:-3}
cd "$(dirname "$0")/.."
PK=$BUILD/perfkit
FG=${SHARED:-../shared}/tools/fgframes
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

[ -r "$DATA" ] || { echo "no $DATA" >&2; exit 1; }
echo "# $DATA ($(du -m "$DATA" | cut -f1) MB); best of $RUNS; load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"

# run LABEL BIN CMD OUT: best wall and best cpu over RUNS into globals
run() {
	local label=$1 bin=$2 cmd=$3 out=$4 best_w= best_c=
	for ((i = 0; i < RUNS; i++)); do
		/usr/bin/time -f '%e %U %S' -o "$TMP/t" "$bin" "$cmd" "$DATA" >"$out" 2>/dev/null
		read -r w u s <"$TMP/t"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
		best_w=$(awk -v a="${best_w:-1e9}" -v b="$w" 'BEGIN { print (b < a ? b : a) }')
		best_c=$(awk -v a="${best_c:-1e9}" -v b="$c" 'BEGIN { print (b < a ? b : a) }')
	done
	eval "${label}_w=$best_w ${label}_c=$best_c"
}

for cmd in flamegraph collapse; do
	run new "$PK" $cmd "$TMP/new.$cmd"
	run old "$OLD" $cmd "$TMP/old.$cmd"
	printf '%-10s  new %7.2f s wall %7.2f s cpu   old %7.2f s wall %7.2f s cpu   old/new %.2fx wall %.2fx cpu\n' \
		"$cmd" "$new_w" "$new_c" "$old_w" "$old_c" \
		"$(awk -v o="$old_w" -v n="$new_w" 'BEGIN { print o / n }')" \
		"$(awk -v o="$old_c" -v n="$new_c" 'BEGIN { print o / n }')"
done
if cmp -s "$TMP/new.collapse" "$TMP/old.collapse"; then echo "collapse: identical folded stacks"; else echo "collapse: DIFFERENT"; fi
if [ -x "$FG" ] && command -v python3 >/dev/null; then
	if diff <("$FG" "$TMP/new.flamegraph") <("$FG" "$TMP/old.flamegraph") >/dev/null; then
		echo "flamegraph: identical frames (fgframes, $("$FG" "$TMP/new.flamegraph" | grep -vc '^#') frames)"
	else
		echo "flamegraph: DIFFERENT frames (fgframes)"
	fi
else
	cmp -s "$TMP/new.flamegraph" "$TMP/old.flamegraph" && echo "flamegraph: identical SVG" || echo "flamegraph: SVGs differ"
fi
