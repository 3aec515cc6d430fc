#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A stack whose bucket in the stack map already holds another stack is not
# lost (src/bpf/stackid.h): it goes to the spill map.  With
# --stack-storage-size 1 (bcc's option) the main map has one bucket and the
# spill map one: two distinct stacks are kept, and the rest show as
# [missing ... stack: EEXIST] frames, counted on stderr.  Without the
# spill map one stack would be kept.  (A busy machine's 16384-bucket map
# refused 40-80 stacks in 2 s, once the very stack offcputime's test
# looked for: 0704 in CI.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require
NAP=$PK_BUILD/tests/workloads/napper

"$NAP" 30 30 200 >"$T/pid" &   # 30 ms spin, 30 ms nap, 200 rounds (12 s)
napid=$!
for i in $(seq 50); do [ -s "$T/pid" ] && break; sleep 0.05; done

# offcputime, interruptible sleeps only (--state 1): the nap, whose kernel
# and user stacks are two distinct stacks for a map of one bucket
if tracer_start "$T/off" "$T/off.err" "$PERFKIT" offcputime -p "$napid" --state 1 -f --stack-storage-size 1; then
	sleep 1
	tracer_stop
	sed 's/^/# /' "$T/off"
	expect 'offcputime: the nap keeps its user frames and its kernel frames (one bucket each map)' \
		grep -Eq '^napper;([^;]*;)*nap_here;.*schedule_\[k\] [0-9]+$' "$T/off"
	expect 'offcputime: no stack lost' sh -c "! grep -q 'missing' '$T/off'"
else
	not_ok 'offcputime starts'
fi

# profile, user stacks: spin_here's samples at many instructions, many
# distinct stacks: two kept (their lines may read the same: frames are
# named by function), the rest EEXIST; a kept id read back from the map it
# is in (from the wrong one it would read as [missing ... evicted])
if tracer_start "$T/prof" "$T/prof.err" "$PERFKIT" profile -p "$napid" -U -f -F 499 --stack-storage-size 1; then
	sleep 1.5
	tracer_stop
	sed 's/^/# /' "$T/prof" | head -8
	kept=$(grep '^napper;' "$T/prof" | grep -vc 'missing')
	expect "profile: kept stacks read back, at most two lines of them ($kept)" test "$kept" -ge 1 -a "$kept" -le 2
	expect 'profile: none read as evicted' sh -c "! grep -q 'evicted' '$T/prof'"
	expect 'profile: the others shown as [missing user stack: EEXIST]' \
		grep -q '^napper;\[missing user stack: EEXIST\] [0-9]*$' "$T/prof"
	expect 'profile: the loss counted on stderr' grep -Eq '[1-9][0-9]* user .*stacks not collected' "$T/prof.err"
else
	not_ok 'profile starts'
fi
kill "$napid" 2>/dev/null; wait "$napid" 2>/dev/null

"$PERFKIT" offcputime --stack-storage-size 0 >/dev/null 2>"$T/e0"
expect 'offcputime --stack-storage-size 0: usage error (exit 2)' test $? = 2
expect '... naming the option' grep -q '^perfkit offcputime: --stack-storage-size' "$T/e0"
done_testing
