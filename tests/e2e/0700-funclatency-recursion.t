#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit funclatency: nap_level(2) -> nap_level(1) -> nap_level(0), each
# level sleeping 10 ms, called 5 times: 15 calls, 5 of ~10 ms, 5 of ~20 ms
# and 5 of ~30 ms, each measured from its own entry (total ~300 ms).
# Then the same with a linear histogram (-m -L 10), which unlike the log2
# one puts the 20 and 30 ms calls in different buckets, its overflow slot,
# and bad -L values.
# Sleeps never end early but end late on a loaded machine (10 ms and more:
# seen here with other work running), so every bound below is one a late
# wake-up cannot break: nothing under the calls' own 10/20/30 ms, at least
# 5 calls of 30 ms or more and 10 of 20 ms or more, the sum of the calls
# at least 300 ms and at most 3x the workload's wall time (each of the 3
# levels lasts at most the round).  A wrong implementation still fails them:
# timing every level from the innermost entry (one shared slot) gives 15
# calls of ~10 ms and ~150 ms; counting a call twice, more than 3x.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require

W=$PK_BUILD/tests/workloads/recurse
# count of the histogram row whose range starts at $2
row() { awk -v lo="$2" '$1 == lo && $2 == "->" { print $5; f = 1 } END { if (!f) print 0 }' "$1"; }

# rows_from OUT LO — sum of the counts of the rows starting at LO or above
rows_from() { awk -v lo="$2" '$2 == "->" && $1 + 0 >= lo { n += $5 } END { print n + 0 }' "$1"; }
wall_ms() { local t0 t1; t0=$(date +%s%N); "$@"; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }

if tracer_start "$T/out" "$T/err" "$PERFKIT" funclatency -m "$W:nap_level"; then
	wall=$(wall_ms "$W" 5 2)
	tracer_stop
	expect 'Ctrl-C ends it with status 0' test $? = 0
	sed 's/^/# /' "$T/out"
	expect 'msecs histogram' grep -Eq '^ +msecs +: count +distribution$' "$T/out"
	expect '15 calls' grep -Eq 'count: 15$' "$T/out"
	expect "bcc's summary: whole units" grep -Eq '^avg = [0-9]+ msecs, total: [0-9]+ msecs, count: 15$' "$T/out"
	total=$(sed -n 's/.*total: \([0-9.]*\) msecs.*/\1/p' "$T/out")
	# one shared slot instead of a stack would give about 150 ms (every
	# level timed from the innermost entry)
	expect "total $total ms: at least 5 x (10 + 20 + 30) = 300 ms (less rounding)" \
		awk -v t="${total:-0}" 'BEGIN { exit !(t >= 290) }'
	expect "total $total ms: at most 3x the workload's $wall ms wall time" \
		awk -v t="${total:-0}" -v w="$wall" 'BEGIN { exit !(t <= 3 * w) }'
	b8=$(row "$T/out" 8) b16=$(row "$T/out" 16) b32=$(row "$T/out" 32)
	diag "8-15 ms: $b8, 16-31 ms: $b16, 32-63 ms: $b32, wall $wall ms"
	# only the 10 ms calls can be under 16 ms; late wake-ups move calls up
	expect 'at most the 5 calls of 10 ms in 8->15 ms' test "$b8" -le 5
	expect 'the 20 and 30 ms calls at or above 16 ms' test "$(rows_from "$T/out" 16)" -ge 10
	expect 'no call below 8 ms' test "$(row "$T/out" 4)" = 0 -a "$(row "$T/out" 2)" = 0 -a "$(row "$T/out" 0)" = 0
else
	not_ok 'funclatency starts'
fi

# A sleep never ends early, so no call is below its 10/20/30 ms; it can end
# late on a busy machine, and 10 ms late moves a call one bucket up (with
# the calls around it: an inner call's delay is in its callers' time too).
# So: at most 5 calls under 20 ms, at least 10 at 20 or more, at least 5 at
# 30 or more, none under 10.
if tracer_start "$T/lout" "$T/lerr" "$PERFKIT" funclatency -m --linear=10 "$W:nap_level"; then
	"$W" 5 2
	tracer_stop
	expect '-L: Ctrl-C ends it with status 0' test $? = 0
	sed 's/^/# /' "$T/lout"
	expect '-L: msecs histogram' grep -Eq '^ +msecs +: count +distribution$' "$T/lout"
	expect '-L: 15 calls' grep -Eq 'count: 15$' "$T/lout"
	l10=$(row "$T/lout" 10) l20=$(row "$T/lout" 20) l30=$(row "$T/lout" 30) l40=$(row "$T/lout" 40)
	diag "10-19 ms: $l10, 20-29 ms: $l20, 30-39 ms: $l30, 40-49 ms: $l40"
	expect '-L: at most the 5 calls of 10 ms in 10->19' test "$l10" -le 5
	expect '-L: at least the 10 calls of 20 and 30 ms at 20 ms or more' test "$(rows_from "$T/lout" 20)" -ge 10
	expect '-L: at least the 5 calls of 30 ms at 30 ms or more' test "$(rows_from "$T/lout" 30)" -ge 5
	expect '-L: all 15 at 10 ms or more' test "$(rows_from "$T/lout" 10)" = 15
	expect '-L: empty edges trimmed (the first and last rows count calls, the first at 10 ms or more)' \
		awk '$2 == "->" { if (!first) { first = 1; ok = $1 >= 10 && $5 > 0 }; last = $5 }
		     END { exit !(ok && last > 0) }' "$T/lout"
	expect '-L: bucket rows are STEP wide' \
		awk '$2 == "->" { n++; if ($3 - $1 != 9 || $1 % 10) bad = 1 } END { exit !(n && !bad) }' "$T/lout"
else
	not_ok 'funclatency -L starts'
fi

# 1000 buckets of 10 us end at 10 ms: one 10 ms call is in the overflow slot
if tracer_start "$T/oout" "$T/oerr" "$PERFKIT" funclatency -u -L 10 "$W:nap_level"; then
	"$W" 1 0
	tracer_stop
	sed 's/^/# /' "$T/oout"
	expect '-L overflow: one row, ">= 10000"' \
		awk 'NR == 3 { ok = $1 == ">=" && $2 == 10000 && $4 == 1 } END { exit !(ok && NR == 5) }' "$T/oout"
else
	not_ok 'funclatency -u -L 10 starts'
fi

for bad in 0 abc -5 5x 1000000000000001; do
	"$PERFKIT" funclatency -m -L "$bad" "$W:nap_level" >"$T/bout" 2>"$T/berr"
	expect "-L $bad: usage error (exit 2)" test $? = 2
	expect "-L $bad: one line naming the value" \
		test "$(wc -l <"$T/berr")" = 1 -a -n "$(grep -F "linear step expects an integer from 1 to" "$T/berr" | grep -F "got '$bad'")"
done
"$PERFKIT" funclatency --linear=0 "$W:nap_level" >/dev/null 2>&1
expect '--linear=0: usage error (exit 2)' test $? = 2

"$PERFKIT" funclatency "$W:no_such_function" >/dev/null 2>"$T/err2"
expect 'a missing function: exit 1' test $? = 1
expect '... with one line naming it' grep -q "no function 'no_such_function'" "$T/err2"
"$PERFKIT" funclatency -u -m "$W:nap_level" >/dev/null 2>&1
expect '-u with -m: usage error (exit 2)' test $? = 2
"$PERFKIT" funclatency nocolon >/dev/null 2>&1
expect 'no BINARY:FUNCTION: usage error (exit 2)' test $? = 2
done_testing
