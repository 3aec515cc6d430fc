#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit cache --model=cachegrind against cachegrind itself on examples/matmul
# (each version, with a given geometry) and a system program (with the
# geometry both take from the host): every total identical.  Then the matmul
# lesson (D1 miss rates, with that given geometry: it must not depend on the
# host's caches), perfkit annotate's inner-loop lines, and cg_annotate
# reading perfkit's file.
. "$(dirname "$0")/lib.sh"

VGLIB=$PK_BUILD/vgtool/lib
MATMUL=$PK_BUILD/examples/matmul
if ! have valgrind || ! ls "$VGLIB"/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi

# matmul prints its run time, so its printf work (and instruction count)
# varies from run to run: give both runs the same fake clock.
cat >"$T/clock.c" <<'EOF'
#include <time.h>
static long n;
int clock_gettime(clockid_t c, struct timespec *ts)
{
	(void)c;
	n++;
	ts->tv_sec = n;
	ts->tv_nsec = 0;
	return 0;
}
EOF
cc -shared -fPIC -O2 -o "$T/clock.so" "$T/clock.c" || { not_ok "build the clock shim"; done_testing; exit; }

# Both runs get exactly the same environment (its size and order move the
# client's stack, so they change addresses and counts): env -i with a fixed
# list.  ASan (the sanitized perfkit) must not object to the preloaded shim.
ENVV=(PATH="$PATH" LD_PRELOAD="$T/clock.so"
      ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
      UBSAN_OPTIONS="${UBSAN_OPTIONS:-}")
# the geometry of the matmul runs: a 32 KiB 8-way D1 (the lesson's cache)
GEO=(--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64)
cg() { # out [geometry options] prog args...
	local out=$1; shift
	env -i "${ENVV[@]}" valgrind -q --tool=cachegrind --cache-sim=yes \
		--branch-sim=yes --cachegrind-out-file="$out" "$@" >/dev/null 2>"$out.err"
}
pk() { # out [geometry options] prog args...
	local out=$1; shift
	env -i "${ENVV[@]}" "$PERFKIT" cache -q --model=cachegrind --branch-sim=yes -o "$out" "$@" >/dev/null 2>"$out.err"
}
same_totals() { # what cg-out pk-out
	grep '^events:' "$2" >"$T/e.cg"; grep '^events:' "$3" >"$T/e.pk"
	grep '^summary:' "$2" >>"$T/e.cg"; grep '^summary:' "$3" >>"$T/e.pk"
	same_file "$1: events and totals identical to cachegrind" "$T/e.cg" "$T/e.pk"
}

# the eight simulations two at a time, in the background, each with its
# exit status in OUT.rc (their counts do not depend on the load: two cores
# take them in about half the time of one after the other)
bg() { # run out [geometry options] prog args...
	local run=$1 out=$2
	shift
	while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
	{ "$run" "$@"; echo $? >"$out.rc"; } &
	jobs_+=($!)
}
jobs_=()
# a short system program too, with the geometry both take from the host (CPUID)
seq 1 3000 | sed 's/$/ word/' >"$T/words"
for v in naive ikj blocked; do
	bg cg "$T/cg-$v" "${GEO[@]}" "$MATMUL" "$v" 1
	bg pk "$T/pk-$v" "${GEO[@]}" "$MATMUL" "$v" 1
done
bg cg "$T/cg-sort" sort -r "$T/words"
bg pk "$T/pk-sort" sort -r "$T/words"
wait "${jobs_[@]}"
ran() { [ "$(cat "$1.rc" 2>/dev/null)" = 0 ]; }

for v in naive ikj blocked; do
	ran "$T/cg-$v" || not_ok "cachegrind ran matmul $v"
	if ran "$T/pk-$v"; then ok "perfkit cache ran matmul $v"; else not_ok "perfkit cache ran matmul $v"; cat "$T/pk-$v.err" | sed 's/^/# /'; fi
	same_totals "matmul $v" "$T/cg-$v" "$T/pk-$v"
done
same_totals "sort -r" "$T/cg-sort" "$T/pk-sort"
# per-line records too, not just the totals
same_file "sort -r: every fl/fn/line record identical" <(grep -v '^cmd:\|^desc:' "$T/cg-sort") <(grep -v '^cmd:\|^desc:' "$T/pk-sort")

# D1 miss rate = (D1mr + D1mw) / (Dr + Dw), from the summary line
rate() {
	awk '/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i }
	     /^summary:/ { printf "%.6f\n", ($col["D1mr"] + $col["D1mw"]) / ($col["Dr"] + $col["Dw"]) }' "$1"
}
rn=$(rate "$T/pk-naive"); ri=$(rate "$T/pk-ikj"); rb=$(rate "$T/pk-blocked")
diag "D1 miss rate (${GEO[1]}): naive $rn  ikj $ri  blocked $rb"
expect "D1 miss rate naive >> ikj (more than 3x)" awk -v a="$rn" -v b="$ri" 'BEGIN { exit !(a > 3 * b) }'
# examples/matmul's blocked works on a copy with padded rows, so its tiles
# stay in D1: the lesson is there in full.
expect "D1 miss rate naive >> ikj >> blocked (3x each)" \
	awk -v a="$rn" -v b="$ri" -v c="$rb" 'BEGIN { exit !(a > 3 * b && b > 3 * c) }'

# perfkit annotate puts the D1 misses on each version's inner-loop line
src=$TOP/examples/matmul.c
ln_naive=$(grep -n 'sum += A\[i\]\[k\] \* B\[k\]\[j\];' "$src" | head -1 | cut -d: -f1)
ln_ikj=$(grep -n 'C\[i\]\[j\] += a \* B\[k\]\[j\];' "$src" | sed -n 1p | cut -d: -f1)
ln_blocked=$(grep -n 'C\[i\]\[j\] += a \* B\[k\]\[j\];' "$src" | sed -n 2p | cut -d: -f1)
# (the top line with line information: clang leaves some vectorised code on
# line 0, which annotate shows as "file:?")
for v in naive ikj blocked; do
	eval want=\$ln_$v
	top=$("$PERFKIT" annotate "$T/pk-$v" --show=D1mr --sort=D1mr --auto=no |
		awk '/^-- Lines/ { getline; on = 1; next } on && $NF !~ /:\?$/ { print $NF; exit }')
	if [ "${top##*/}" = "matmul.c:$want" ]; then ok "annotate: $v's D1 misses on its inner loop (line $want)"
	else not_ok "annotate: $v's D1 misses on its inner loop (line $want), got '$top'"; fi
done
"$PERFKIT" annotate "$T/pk-naive" --show=Ir,D1mr --sort=D1mr >"$T/ann"
expect "annotate: source shown with counts beside the inner loop" \
	grep -q "^ *[0-9,]\+ \+[0-9,]\{9,\} \+.*sum += A\[i\]\[k\] \* B\[k\]\[j\];" "$T/ann"

# cg_annotate reads perfkit's output
if have cg_annotate; then
	if cg_annotate "$T/pk-naive" >"$T/cga" 2>&1; then ok "cg_annotate reads perfkit's file"
	else not_ok "cg_annotate reads perfkit's file"; head -5 "$T/cga" | sed 's/^/# /'; fi
	expect "cg_annotate shows naive" grep -q "naive" "$T/cga"
else
	skip "cg_annotate not installed"
fi
# without the branch events, cachegrind's events: line ends with a blank,
# and cg_merge compares the line as a string: the same bytes, so that
# cg_merge takes a perfkit file and a cachegrind one together
env -i "${ENVV[@]}" valgrind -q --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$T/m.cg" \
	sort -r "$T/words" >/dev/null 2>&1
env -i "${ENVV[@]}" "$PERFKIT" cache -q --model=cachegrind -o "$T/m.pk" sort -r "$T/words" >/dev/null 2>&1
expect "cache events alone: the events: line byte for byte as cachegrind's" \
	test -n "$(grep '^events:' "$T/m.cg")" -a "$(grep '^events:' "$T/m.cg")" = "$(grep '^events:' "$T/m.pk")"
# cg_diff's output (NEW minus OLD: negative counts) read by annotate as
# cg_annotate reads it: the totals and the rows with their signs
if have cg_diff; then
	cg_diff "$T/cg-naive" "$T/cg-ikj" >"$T/d.out" 2>/dev/null
	"$PERFKIT" annotate "$T/d.out" --auto=no >"$T/d.ann" 2>"$T/d.err"
	expect "annotate reads cg_diff's output (negative counts): exit 0" test $? = 0 -a ! -s "$T/d.err"
	tot=$(awk '/^summary:/ { print $2 }' "$T/d.out")
	expect "... its Ir total negative in the file ($tot)" test "${tot:0:1}" = "-"
	expect "... printed with its sign and commas" \
		grep -qE "^ *$(echo "$tot" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') .*PROGRAM TOTALS" "$T/d.ann"
	expect "... the naive loop's function among the rows" grep -q 'matmul.c:mm_naive\|matmul.c:naive' "$T/d.ann"
else
	skip "cg_diff not installed"
fi
if have cg_merge; then
	cg_merge -o "$T/m.merged" "$T/m.pk" "$T/m.cg" >/dev/null 2>&1
	expect "cg_merge merges a perfkit file with a cachegrind one" test $? = 0 -a -s "$T/m.merged"
else
	skip "cg_merge not installed"
fi
done_testing
