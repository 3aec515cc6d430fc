#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit mem record/report (issue 18, acceptance 2), geometry pinned so no
# count depends on this host's caches:
#  - listchase list: the node allocation site (new_node's malloc line)
#    carries most of the LL misses, and ranks first among the data objects;
#  - listchase array: the misses of the walk land on the global `values`;
#  - perf mem report's columns and sort keys; --folded feeds flamegraph.
. "$(dirname "$0")/lib.sh"

if ! have valgrind || ! ls "$PK_BUILD"/vgtool/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi
EX=$PK_BUILD/examples
GEOM="--D1=32768,8,64 --L2=262144,8,64 --LL=1048576,16,64 --tlb=64,4,4096 --stlb=1536,12"
ML=$(grep -n 'malloc(sizeof(\*n));' "$TOP/examples/listchase.c" | cut -d: -f1)

# shellcheck disable=SC2086
"$PERFKIT" mem record -o "$T/list.mem" $GEOM -- "$EX/listchase" list 50000 2 >/dev/null 2>"$T/list.err"
expect "mem record listchase list writes its file" test -s "$T/list.mem"
"$PERFKIT" mem report -i "$T/list.mem" --stdio >"$T/list.out" 2>&1
top=$(sed -n '/^# Data objects by LL misses/{n;p}' "$T/list.out")
pct=$(echo "$top" | sed -n 's/.*: \([0-9.]*\) % of LL misses.*/\1/p')
if echo "$top" | grep -q "^block allocated at listchase.c:$ML (new_node): " &&
   awk -v p="${pct:-0}" 'BEGIN { exit !(p > 50) }'; then
	ok "list: the node allocation site listchase.c:$ML carries most LL misses ($pct %)"
else
	not_ok "list: the node allocation site listchase.c:$ML carries most LL misses"
	sed -n '/^# Data objects/,$p' "$T/list.out" | sed 's/^/# /'
fi
expect "report has perf mem's columns" grep -q '^# Overhead  *Samples  Memory access  Symbol  *Shared Object  *Data Symbol  *Data Object' "$T/list.out"
# the preloaded allocation hooks' own accesses are perfkit's: no row whose
# code is in pkmemwrap*.so (malloc there was 12 % of all accesses)
expect "no access counted in perfkit's own pkmemwrap.so" \
	sh -c '! grep -E "^ *[0-9.]+% +[0-9]+ +[A-Za-z0-9]+ (hit|miss) +\[\.\] [^ ]+ +pkmemwrap" "$1"' sh "$T/list.out"
expect "the walk's RAM hits are on the heap block" \
	grep -Eq "RAM hit +\[\.\] walk_list +listchase +\[heap\] new_node@listchase.c:$ML +\[heap\]" "$T/list.out"
"$PERFKIT" mem report -i "$T/list.mem" --sort=symbol_daddr,mem >"$T/sort.out" 2>&1
expect "--sort=symbol_daddr,mem: two key columns" grep -q '^# Overhead  *Samples  Data Symbol  *Memory access  *dTLB miss$' "$T/sort.out"
for k in mem sym dso symbol_daddr dso_daddr; do
	expect "--sort=$k accepted" sh -c '"$0" mem report -i "$1" --sort="$2" >/dev/null' "$PERFKIT" "$T/list.mem" $k
done
"$PERFKIT" mem report -i "$T/list.mem" --sort=bogus >/dev/null 2>"$T/bogus.err"
expect "--sort=bogus: usage error (2), one line" test $? = 2 -a "$(wc -l <"$T/bogus.err")" = 1

"$PERFKIT" mem report -i "$T/list.mem" --folded >"$T/list.folded" 2>&1
expect "--folded: the heap stack weighted by LL misses" \
	grep -Eq "^\[heap\];main;new_node@listchase.c:$ML;walk_list [0-9]+$" "$T/list.folded"
"$PERFKIT" flamegraph "$T/list.folded" -o "$T/list.svg" 2>/dev/null
expect "flamegraph draws the data-object folded output" grep -q 'new_node@listchase.c' "$T/list.svg"

# the global array, no prefetcher: every line of it misses once per walk
# shellcheck disable=SC2086
"$PERFKIT" mem record -o "$T/arr.mem" $GEOM --prefetch=none -- "$EX/listchase" array 200000 2 >/dev/null 2>&1
"$PERFKIT" mem report -i "$T/arr.mem" >"$T/arr.out" 2>&1
top=$(sed -n '/^# Data objects by LL misses/{n;p}' "$T/arr.out")
n=$(echo "$top" | sed -n 's/.*of LL misses (\([0-9]*\)).*/\1/p')
# 200 000 longs = 25 000 lines, walked twice; 1 MiB LL keeps none
if echo "$top" | grep -q '^`values` (listchase): ' && [ "${n:-0}" -ge 49000 ] && [ "${n:-0}" -le 51000 ]; then
	ok "array: the misses land on the symbol values ($n LL misses)"
else
	not_ok "array: the misses land on the symbol values"; sed -n '/^# Data objects/,$p' "$T/arr.out" | sed 's/^/# /'
fi
done_testing
