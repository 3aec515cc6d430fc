#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit cache --model=modern: the extra levels (L2, DTLB, prefetch) are
# reported and behave (a stream is prefetched, a page walk misses the TLB);
# the events it shares with the cachegrind model agree; client requests
# zero and dump the counts; annotate --folded.
. "$(dirname "$0")/lib.sh"

if ! have valgrind || ! ls "$PK_BUILD"/vgtool/lib/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi
cat >"$T/stream.c" <<'EOF'
#include <stdlib.h>
#include "perfkit_cache.h"
#define MB (1 << 20)
static char a[4 * MB];
int main(int argc, char **argv)
{
	long s = 0;
	int step = argc > 1 ? atoi(argv[1]) : 64;

	for (int i = 0; i < 4 * MB; i += 4096)	/* before ZERO: dropped */
		a[i] = 1;
	PERFKIT_CACHE_ZERO();
	for (int i = 0; i < 4 * MB; i += step)	/* the stream */
		s += a[i];
	PERFKIT_CACHE_DUMP();
	for (int i = 0; i < 4 * MB; i += 4096)	/* after the dump */
		s += a[i];
	return (int)(s & 1);
}
EOF
cc -O1 -g -I"$TOP/src/vgtool" -o "$T/stream" "$T/stream.c" || { not_ok "build stream.c"; done_testing; exit; }

col() { # file event — total from the summary line
	awk -v e="$2" '/^events:/ { for (i = 2; i <= NF; i++) if ($i == e) c = i }
		/^summary:/ { print $c }' "$1"
}

# The stream's lesson (and the models' agreement on I1 and D1) is asserted
# with the geometry given: 32 KiB L1s, a 1 MiB L2 (the 4 MiB stream misses
# it).  LL, the TLB and the runs further down take the host's geometry
# (PERFKIT_SYSFS_CPU: 0804 runs this file against several real CPUs').
GEO=(--I1=32768,8,64 --D1=32768,8,64)
"$PERFKIT" cache -q --model=modern "${GEO[@]}" --L2=1048576,16,64 --prefetch=stride -o "$T/st" "$T/stream" 64 2>"$T/e"
expect "modern run wrote its file" [ -s "$T/st" ]
expect "events name the extra levels" grep -q '^events: Ir I1mr I2mr ILmr Dr D1mr D2mr DLmr Dw D1mw D2mw DLmw Bc Bcm Bi Bim DTmr DTmw PFi PFh ' "$T/st"
expect "desc names L2, D-TLB and the prefetcher" \
	bash -c "grep -q '^desc: L2 cache:' '$T/st' && grep -q '^desc: D-TLB:' '$T/st' && grep -q '^desc: prefetch: *stride' '$T/st'"
"$PERFKIT" cache -q --model=modern "${GEO[@]}" --L2=1048576,16,64 --prefetch=none -o "$T/np" "$T/stream" 64 2>>"$T/e"
"$PERFKIT" cache -q --model=cachegrind "${GEO[@]}" --branch-sim=yes -o "$T/cg" "$T/stream" 64 2>>"$T/e"
d1=$(col "$T/st" D1mr); l2s=$(col "$T/st" D2mr); l2n=$(col "$T/np" D2mr); pfh=$(col "$T/st" PFh)
diag "stream: D1mr $d1, L2 D misses with stride prefetch $l2s, without $l2n, prefetch hits $pfh"
expect "stream: the stride prefetcher turns L2 misses into prefetch hits" \
	awk -v s="$l2s" -v n="$l2n" -v h="$pfh" 'BEGIN { exit !(n > 50000 && s * 4 < n && h > n / 2) }'
# D1 agrees with no prefetcher (the modern L1 prefetcher changes D1 misses);
# the modern branch predictor is another one, so only branch counts agree
for e in Ir Dr Dw I1mr D1mr D1mw Bc Bi; do
	a=$(col "$T/np" $e); b=$(col "$T/cg" $e)
	[ "$a" = "$b" ] && ok "modern and cachegrind models agree on $e ($a)" || not_ok "modern and cachegrind models agree on $e ($a vs $b)"
done
"$PERFKIT" cache -q --model=modern --prefetch=none -o "$T/pg" "$T/stream" 4096 2>>"$T/e"
tm=$(col "$T/pg" DTmr)
diag "page walk: DTmr $tm"
expect "page-stride walk of 1024 pages misses the 64-entry TLB on every page" [ "$tm" -ge 1024 ]
"$PERFKIT" cache -q --model=modern --tlb=none -o "$T/nt" "$T/stream" 4096 2>>"$T/e"
expect "--tlb=none: no TLB misses" [ "$(col "$T/nt" DTmr)" = 0 ]

# client requests: counts before ZERO are gone, the dump has the stream
ln_before=$(grep -n 'a\[i\] = 1;' "$T/stream.c" | cut -d: -f1)
ln_stream=$(grep -n 's += a\[i\];' "$T/stream.c" | sed -n 1p | cut -d: -f1)
ln_after=$(grep -n 's += a\[i\];' "$T/stream.c" | sed -n 2p | cut -d: -f1)
expect "DUMP wrote OUT.1" [ -s "$T/st.1" ]
has_line() { awk -v l="$2" '$1 == l && $2 > 0 { f = 1 } END { exit !f }' "$1"; }
expect "dump: has the stream's line" has_line "$T/st.1" "$ln_stream"
expect_fail "dump: the line before ZERO was zeroed" has_line "$T/st.1" "$ln_before"
expect_fail "dump: nothing from after the dump" has_line "$T/st.1" "$ln_after"
expect "final file: has the line after the dump" has_line "$T/st" "$ln_after"
expect_fail "final file: the line before ZERO was zeroed" has_line "$T/st" "$ln_before"

# annotate --folded EVENT: one frame per function, weighted by the event
"$PERFKIT" annotate "$T/st" --folded D1mr >"$T/folded"
expect "annotate --folded: 'stream;main N'" grep -q '^stream;main [0-9][0-9]*$' "$T/folded"
if have cg_annotate; then
	if cg_annotate "$T/st" >"$T/cga" 2>&1; then ok "cg_annotate reads the modern file"; else not_ok "cg_annotate reads the modern file"; head -3 "$T/cga" | sed 's/^/# /'; fi
else
	skip "cg_annotate not installed"
fi
done_testing
