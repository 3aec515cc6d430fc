#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit funclatency: nap_level(2) -> nap_level(1) -> nap_level(0), each
# level sleeping 10 ms, called 5 times: 15 calls, 5 of ~10 ms, 5 of ~20 ms
# and 5 of ~30 ms, each measured from its own entry (total ~300 ms).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require

W=$PK_BUILD/tests/workloads/recurse
# count of the histogram row whose range starts at $2
row() { awk -v lo="$2" '$1 == lo && $2 == "->" { print $5; f = 1 } END { if (!f) print 0 }' "$1"; }

if tracer_start "$T/out" "$T/err" "$PERFKIT" funclatency -m "$W:nap_level"; then
	"$W" 5 2
	tracer_stop
	expect 'Ctrl-C ends it with status 0' test $? = 0
	sed 's/^/# /' "$T/out"
	expect 'msecs histogram' grep -Eq '^ +msecs +: count +distribution$' "$T/out"
	expect '15 calls' grep -Eq 'count: 15$' "$T/out"
	total=$(sed -n 's/.*total: \([0-9.]*\) msecs.*/\1/p' "$T/out")
	# one shared slot instead of a stack would give about 150 ms (every
	# level timed from the innermost entry)
	expect "total $total ms is about 5 x (10 + 20 + 30) = 300 ms" \
		awk -v t="${total:-0}" 'BEGIN { exit !(t >= 290 && t < 450) }'
	b8=$(row "$T/out" 8) b16=$(row "$T/out" 16) b32=$(row "$T/out" 32)
	diag "8-15 ms: $b8, 16-31 ms: $b16, 32-63 ms: $b32"
	# 10 ms calls land in 8->15 (or 16->31 when a sleep overruns on a busy
	# machine); the 20 and 30 ms calls in 16->31 (30 ms ones may overrun to 32)
	expect 'the 10 ms calls in 8->15 ms (at most one overran)' test "$b8" -ge 4 -a "$b8" -le 5
	expect 'the 20 and 30 ms calls at or above 16 ms' test $((b16 + b32)) -ge 10
	expect 'no call below 8 ms' test "$(row "$T/out" 4)" = 0 -a "$(row "$T/out" 2)" = 0
else
	not_ok 'funclatency starts'
fi

"$PERFKIT" funclatency "$W:no_such_function" >/dev/null 2>"$T/err2"
expect 'a missing function: exit 1' test $? = 1
expect '... with one line naming it' grep -q "no function 'no_such_function'" "$T/err2"
"$PERFKIT" funclatency -u -m "$W:nap_level" >/dev/null 2>&1
expect '-u with -m: usage error (exit 2)' test $? = 2
"$PERFKIT" funclatency nocolon >/dev/null 2>&1
expect 'no BINARY:FUNCTION: usage error (exit 2)' test $? = 2
done_testing
