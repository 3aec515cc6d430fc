#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit biolatency: the direct I/Os of dd are counted (at least as many as
# dd issued) in bcc's histogram layout, per disk with -D.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require

# sum of the count column of every histogram row
hist_total() { awk '$2 == "->" && $4 == ":" { n += $5 } END { print n + 0 }' "$1"; }

N=64
if dd if=/dev/zero of="$T/probe" bs=4k count=1 oflag=direct 2>/dev/null; then
	if tracer_start "$T/out" "$T/err" "$PERFKIT" biolatency -D; then
		dd if=/dev/zero of="$T/f" bs=4k count=$N oflag=direct 2>/dev/null
		tracer_stop
		expect 'Ctrl-C ends it with status 0' test $? = 0
		head -12 "$T/out" | sed 's/^/# /'
		expect 'usecs histogram header' grep -Eq '^ +usecs +: count +distribution$' "$T/out"
		expect '-D: disk = NAME lines' grep -Eq '^disk = [a-z0-9]' "$T/out"
		total=$(hist_total "$T/out")
		diag "I/Os counted: $total (dd issued $N)"
		expect "at least the $N I/Os dd issued" test "$total" -ge $N
	else
		not_ok 'biolatency starts'
	fi
	# interval and count: ends by itself
	"$PERFKIT" biolatency -m 0.2 2 >"$T/out2" 2>"$T/err2"
	expect 'interval 0.2 count 2 ends by itself with status 0' test $? = 0
else
	skip "O_DIRECT not supported on the filesystem of $T"
fi
"$PERFKIT" biolatency 0 >/dev/null 2>&1
expect 'bad interval: exit 2' test $? = 2
done_testing
