#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/session-walk.sh [BUILD [OLD_BUILD]] — the session's share of
# report/script/collapse on a perf.data (REPORT_DATA=FILE, or REAL=1:
# bench/real-inputs.sh's recording; neither: nothing to do):
# bench/session-walk.c linked against BUILD's libperfkit.a (and OLD_BUILD's,
# e.g. a copy of main built with `make build/libperfkit.a`), run interleaved
# RUNS times (default 5).  CPU is user + system time; the median is printed,
# and whether both builds resolved every frame alike.
set -eu
BUILD=${1:-build}
OLD=${2:-}
RUNS=${RUNS:-5}
cd "$(dirname "$0")/.."
DATA=${REPORT_DATA:-}
if [ -z "$DATA" ] && [ "${REAL:-0}" = 1 ]; then
	eval "$(bash bench/real-inputs.sh "$BUILD" | tail -1)"
	DATA=$REAL_DIR/real.data
fi
[ -n "$DATA" ] || { echo "session-walk: no input (REPORT_DATA=FILE or REAL=1): skipped"; exit 0; }
W=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-walk.XXXXXX")
trap 'rm -rf "$W"' EXIT
LIBS="$(pkg-config --libs libdw libelf zlib) -lzstd -lbpf -lcapstone -liberty -lprotobuf-c -lncursesw -ltinfo -lm -lpthread"
builds="$BUILD${OLD:+ $OLD}"
for b in $builds; do
	[ -f "$b/libperfkit.a" ] || { echo "build $b/libperfkit.a first (make BUILD=$b)" >&2; exit 1; }
	# shellcheck disable=SC2086
	cc -O2 -Isrc/lib -o "$W/walk-${b//\//_}" bench/session-walk.c "$b/libperfkit.a" $LIBS
done
echo "input: $DATA, $(du -h "$DATA" | cut -f1); load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
cat "$DATA" >/dev/null
for _ in $(seq "$RUNS"); do
	for b in $builds; do
		n=${b//\//_}
		/usr/bin/time -f '%U %S %M' -o "$W/t" "$W/walk-$n" "$DATA" >"$W/out-$n"
		awk '{ printf "%.2f\n", $1 + $2 }' "$W/t" >>"$W/cpu-$n"
		echo "$(tail -1 "$W/t" | awk '{ print int($3 / 1024) }')" >"$W/rss-$n"
	done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for b in $builds; do
	n=${b//\//_}
	echo "$b: $(cat "$W/out-$n"); CPU s median $(med "$W/cpu-$n") of $(tr '\n' ' ' <"$W/cpu-$n"), peak $(cat "$W/rss-$n") MB"
done
if [ -n "$OLD" ]; then
	a=${BUILD//\//_} o=${OLD//\//_}
	cmp -s "$W/out-$a" "$W/out-$o" && echo "same frames in both builds" || echo "the builds resolve frames differently"
	echo "$BUILD: $(echo "$(med "$W/cpu-$o") / $(med "$W/cpu-$a")" | bc -l | xargs printf '%.2f')x less CPU than $OLD"
fi
