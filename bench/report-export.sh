#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report-export — `perfkit report --export=pprof|speedscope` on a perf.data
# with this build and with OLD (another perfkit binary, e.g. built before
# the exports were fed through the aggregation model), in the same run,
# alternating, best of RUNS: CPU (user + sys) seconds, peak RSS and the
# ratio old/new; checks that both write the same bytes (pprof: but its
# time_nanos, the write time, field 9 of the Profile).
#   bench/report-export.sh [BUILD] OLD_PERFKIT [PERF.DATA] [RUNS]
# PERF.DATA defaults to /work/big/big.data (2.4 M samples, -g).
set -euo pipefail
BUILD=${1:-build}
OLD=${2:?usage: bench/report-export.sh BUILD OLD_PERFKIT [PERF.DATA] [RUNS]}
DATA=${3:-/work/big/big.data}
RUNS=${4:-2}
cd "$(dirname "$0")/.."
PK=$BUILD/perfkit
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

[ -r "$DATA" ] || { echo "no $DATA" >&2; exit 1; }
echo "# $DATA ($(du -m "$DATA" | cut -f1) MB); best of $RUNS; load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"

# the Profile without field 9 (time_nanos)
strip_time() {
	python3 - "$1" <<'PY'
import gzip, sys
def varint(b, i):
    r = s = 0
    while True:
        c = b[i]; i += 1; r |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return r, i
b = gzip.open(sys.argv[1]).read(); i = 0; out = bytearray()
while i < len(b):
    st = i; k, i = varint(b, i); f, w = k >> 3, k & 7
    if w == 0: _, i = varint(b, i)
    elif w == 2: l, i = varint(b, i); i += l
    elif w == 1: i += 8
    elif w == 5: i += 4
    if f != 9: out += b[st:i]
sys.stdout.buffer.write(out)
PY
}

# run LABEL BIN KIND: best cpu and rss over RUNS into globals
run() {
	local label=$1 bin=$2 kind=$3 best_c= best_m=
	for ((i = 0; i < RUNS; i++)); do
		/usr/bin/time -f '%U %S %M' -o "$TMP/t" "$bin" report -i "$DATA" --export="$kind" \
			-o "$TMP/$label.$kind" >/dev/null 2>&1
		read -r u s m <"$TMP/t"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
		best_c=$(awk -v a="${best_c:-1e9}" -v b="$c" 'BEGIN { print (b < a ? b : a) }')
		best_m=$(awk -v a="${best_m:-1e12}" -v b="$m" 'BEGIN { print (b < a ? b : a) }')
	done
	eval "${label}_c=$best_c ${label}_m=$best_m"
}

for kind in pprof speedscope; do
	run new "$PK" $kind
	run old "$OLD" $kind
	printf '%-10s  new %7.2f s cpu %6d MB   old %7.2f s cpu %6d MB   old/new %.2fx cpu\n' \
		"$kind" "$new_c" $((new_m / 1024)) "$old_c" $((old_m / 1024)) \
		"$(awk -v o="$old_c" -v n="$new_c" 'BEGIN { print o / n }')"
	if [ $kind = pprof ]; then
		same=$(cmp -s <(strip_time "$TMP/new.$kind") <(strip_time "$TMP/old.$kind") && echo yes || echo no)
	else
		same=$(cmp -s "$TMP/new.$kind" "$TMP/old.$kind" && echo yes || echo no)
	fi
	echo "$kind: same bytes: $same"
done
