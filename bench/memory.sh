#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# memory — peak RSS (GNU time %M) of perfkit beside its peers on the same
# inputs, at two sizes, to show what memory grows with:
#   report     perfkit report vs perf report --stdio, on perf.data files of
#              SAMPLES and 4×SAMPLES samples of a few distinct stacks
#              (bench/mkbig.py: a real -g recording's samples repeated);
#   flamegraph perfkit flamegraph on the same perf.data files; and on
#              folded text of DISTINCT stacks, once and repeated 4×, vs
#              FlameGraph's flamegraph.pl (looked for in $FLAMEGRAPH_DIR,
#              /tmp/FlameGraph, /tmp/fg; skipped when absent);
#   bombs      `yes | report -i -` and a zstd record expanding to 512 Mi
#              FINISHED_ROUND records (tests/e2e/mkzbomb.py), vs perf.
#   bench/memory.sh [BUILD] [SAMPLES] [DISTINCT]
set -euo pipefail
BUILD=${1:-build}
SAMPLES=${2:-1000000}
DISTINCT=${3:-200000}
cd "$(dirname "$0")/.."
PK=$PWD/$BUILD/perfkit
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FGPL=
for d in "${FLAMEGRAPH_DIR:-}" /tmp/FlameGraph /tmp/fg; do
	if [ -n "$d" ] && [ -f "$d/flamegraph.pl" ]; then FGPL=$d/flamegraph.pl; break; fi
done

# rss LABEL CMD... — run CMD, print wall seconds and peak RSS in MB
rss() {
	local label=$1; shift
	/usr/bin/time -f '%e %M' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" || true
	read -r secs kb < <(tail -1 "$TMP/t") || { secs=? kb=0; }
	printf '%-46s %8s s  %8.1f MB\n' "$label" "$secs" "$(awk -v k="$kb" 'BEGIN { print k / 1024 }')"
}

"$PK" record -F 999 -g -o "$TMP/base.data" -- "$BUILD/tests/workloads/burn2to1" 3000 >/dev/null 2>&1
big=$((SAMPLES * 4))
python3 bench/mkbig.py "$TMP/base.data" "$TMP/n1.data" "$SAMPLES"
python3 bench/mkbig.py "$TMP/base.data" "$TMP/n4.data" "$big"
echo "== report ($(du -m "$TMP/n1.data" | cut -f1) MB and $(du -m "$TMP/n4.data" | cut -f1) MB perf.data)"
for f in n1 n4; do
	n=$([ $f = n1 ] && echo "$SAMPLES" || echo "$big")
	rss "perfkit report, $n samples" "$PK" report -i "$TMP/$f.data" --stdio
	command -v perf >/dev/null && rss "perf report --stdio, $n samples" perf report -i "$TMP/$f.data" --stdio
done
echo "== flamegraph from perf.data"
for f in n1 n4; do
	n=$([ $f = n1 ] && echo "$SAMPLES" || echo "$big")
	rss "perfkit flamegraph, $n samples" "$PK" flamegraph "$TMP/$f.data" -o "$TMP/f.svg"
done

echo "== flamegraph from folded text ($DISTINCT distinct stacks, once and 4x)"
awk -v n="$DISTINCT" 'BEGIN { srand(7); for (i = 0; i < n; i++) {
	d = 3 + int(rand() * 12); s = "main"
	for (k = 0; k < d; k++) s = s ";fn_" int(rand() * 400) "_" k
	print s, 1 + int(rand() * 100) } }' >"$TMP/f1.txt"
cat "$TMP/f1.txt" "$TMP/f1.txt" "$TMP/f1.txt" "$TMP/f1.txt" >"$TMP/f4.txt"
for f in f1 f4; do
	l=$(wc -l <"$TMP/$f.txt")
	rss "perfkit flamegraph, $l lines" "$PK" flamegraph "$TMP/$f.txt" -o "$TMP/f.svg"
	[ -n "$FGPL" ] && rss "flamegraph.pl, $l lines" sh -c 'perl "$1" "$2" >"$3"' - "$FGPL" "$TMP/$f.txt" "$TMP/p.svg"
done
[ -n "$FGPL" ] || echo "(flamegraph.pl not found: FLAMEGRAPH_DIR, /tmp/FlameGraph, /tmp/fg)"

echo "== hostile inputs"
rss "yes | perfkit report -i -" sh -c 'yes | "$1" report -i -' - "$PK"
command -v perf >/dev/null && rss "yes | perf report -i -" sh -c 'yes | perf report -i - --stdio'
if command -v zstd >/dev/null; then
	python3 tests/e2e/mkzbomb.py "$TMP/bomb.data" $((512 * 1024 * 1024))
	echo "(bomb: $(stat -c %s "$TMP/bomb.data") bytes, 512 Mi FINISHED_ROUND records = 4 GiB)"
	rss "perfkit report, zstd bomb" "$PK" report -i "$TMP/bomb.data" --stdio
	command -v perf >/dev/null && rss "perf report --stdio, zstd bomb" perf report -i "$TMP/bomb.data" --stdio
fi
