#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/script.sh [BUILD] — `perfkit script` against `perf script` on the
# same perf.data: CPU time (user + system), wall time, peak RSS, and how
# many lines of the two texts differ once runs of blanks are squeezed.
#   (default) / REAL=1  the real profile of bench/real-inputs.sh (perf record
#                       -g of parallel builds of perfkit)
#   DATA=FILE           that perf.data instead
# Each command runs once (perf takes minutes on the real profile).
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
PK=$PWD/$BUILD/perfkit
[ -x "$PK" ] || { echo "build $PK first (make BUILD=$BUILD)" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (GNU time) needed" >&2; exit 1; }
if [ -z "${DATA:-}" ]; then
	eval "$(bash bench/real-inputs.sh "$BUILD" | tail -1)"
	DATA=$REAL_DIR/real.data
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
cat "$DATA" >/dev/null
echo "input: $DATA, $(du -hL "$DATA" | cut -f1)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc --all) CPUs"
t() {   # t NAME OUTFILE CMD... — CPU s into NAME, wall into NAME_wall, MB into NAME_mb
	local name=$1 out=$2 u s e m; shift 2
	/usr/bin/time -f '%U %S %e %M' -o "$W/tm" "$@" >"$out" 2>/dev/null || true
	read -r u s e m < <(tail -1 "$W/tm")
	printf -v "$name" '%.2f' "$(echo "$u + $s" | bc -l)"
	printf -v "${name}_wall" '%.1f' "$e"
	printf -v "${name}_mb" '%s' "$((m / 1024))"
}
t pf "$W/perf.txt" perf script -i "$DATA"
t pk "$W/pk.txt" "$PK" script -i "$DATA"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-20s %9s %9s %9s\n' "" "CPU s" "wall s" "peak MB" \
	"perf script" "$pf" "$pf_wall" "$pf_mb" "perfkit script" "$pk" "$pk_wall" "$pk_mb"
r() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }
echo "perfkit: $(r "$pf" "$pk")x less CPU than perf (aim >= 2x), $(r "$pf_wall" "$pk_wall")x less wall time, memory $pk_mb MB against $pf_mb MB (aim <= perf's)"
n=$(grep -c '' "$W/perf.txt")
d=$(diff <(tr -s ' \t' '  ' <"$W/perf.txt") <(tr -s ' \t' '  ' <"$W/pk.txt") | grep -c '^<' || true)
echo "text: $d of $n lines of perf's differ after squeezing blanks (README, script: what and why)"
