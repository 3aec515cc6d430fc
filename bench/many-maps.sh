#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/many-maps.sh [BUILD] — report on a process with many maps: N (default
# 200000) one-page MMAP2 records placed in address order and top down (as
# mmap(2) places them), a sample every 1000 (made by tests/e2e/mkoverlap.py).  Prints perfkit's
# and perf report's CPU seconds and peak memory, and the ratio; the map
# table's insert should cost O(log N) plus an end's move, not O(N).
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
PK=$PWD/$BUILD/perfkit
N=${N:-200000}
W=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-maps.XXXXXX")
trap 'rm -rf "$W"' EXIT
[ -x "$PK" ] || { echo "build $PK first (make BUILD=$BUILD)" >&2; exit 1; }
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
for order in up down; do
	python3 tests/e2e/mkoverlap.py "$W/$order.data" "$N" 0 "$order"
	/usr/bin/time -f '%U %S %M' -o "$W/pk" "$PK" report -i "$W/$order.data" --stdio >/dev/null 2>&1
	read -r u s m <"$W/pk"
	pk=$(echo "$u + $s" | bc -l)
	line="$N maps ($order): perfkit $(printf '%.2f' "$pk") s CPU, $((m / 1024)) MB"
	if command -v perf >/dev/null; then
		/usr/bin/time -f '%U %S %M' -o "$W/pf" perf report -i "$W/$order.data" --stdio >/dev/null 2>&1 || true
		read -r u s m <"$W/pf"
		pf=$(echo "$u + $s" | bc -l)
		line="$line; perf $(printf '%.2f' "$pf") s, $((m / 1024)) MB: $(printf '%.1f' "$(echo "$pf / ($pk + 0.001)" | bc -l)")x less CPU"
	fi
	echo "$line"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
