#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A stack whose bucket in the stack map already holds another stack is not
# lost (src/bpf/stackid.h): it goes to the spill map.  With
# --stack-storage-size 1 (bcc's option) the main map has one bucket and the
# spill map one: two distinct stacks are kept, and the rest show as bcc's
# [Missed ... Stack: EEXIST] frames, counted on stderr.  Without the
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
		grep -Eq '^napper;([^;]*;)*nap_here;.*schedule [0-9]+$' "$T/off"
	expect 'offcputime: no stack lost' sh -c "! grep -q 'Missed' '$T/off'"
else
	not_ok 'offcputime starts'
fi

# profile, user stacks of burn2to1, always on the CPU (napper, half
# asleep, got too few samples beside the other lane under ASan): samples
# at many instructions, many distinct stacks: two kept (their lines may
# read the same: frames are named by function), the rest EEXIST; a kept id
# read back from the map it is in (from the wrong one it would read as
# [Missed ... evicted])
"$PK_BUILD/tests/workloads/burn2to1" 60000 &
burnid=$!
if tracer_start "$T/prof" "$T/prof.err" "$PERFKIT" profile -p "$burnid" -U -f -F 499 --stack-storage-size 1; then
	sleep 1.5
	tracer_stop
	sed 's/^/# /' "$T/prof" | head -8
	kept=$(grep '^burn2to1;' "$T/prof" | grep -vc 'Missed')
	expect "profile: kept stacks read back, at most two lines of them ($kept)" test "$kept" -ge 1 -a "$kept" -le 2
	expect 'profile: none read as evicted' sh -c "! grep -q 'evicted' '$T/prof'"
	expect 'profile: the others shown as bcc'"'"'s [Missed User Stack: EEXIST]' \
		grep -q '^burn2to1;\[Missed User Stack: EEXIST\] [0-9]*$' "$T/prof"
	expect 'profile: the loss counted on stderr, with the way out' \
		grep -Eq '[1-9][0-9]* user .*stacks not collected.*bigger --stack-storage-size' "$T/prof.err"
else
	not_ok 'profile starts'
fi

# -f -d: bcc's "-" frame between the user and kernel parts (the nap's
# two stacks only, --state 1, so both are kept); options after the
# duration, as bcc's argparse takes them
"$PERFKIT" offcputime -p "$napid" 1 -f -d --state 1 >"$T/offd" 2>"$T/offd.err"
expect 'offcputime DURATION -f -d --state 1: options after the duration (exit 0)' test $? = 0
sed 's/^/# /' "$T/offd"
expect '-d: a "-" frame between the user part and the kernel part' \
	grep -Eq '^napper;([^;]*;)*nap_here;-;.*schedule [0-9]+$' "$T/offd"
# a size that is not a power of two is rounded up: 3 makes 4 buckets with
# 4 entries.  The kernel rounds the buckets alone: 3 entries in 4 buckets
# failed a stack whose bucket was free with ENOMEM, once 3 were kept (a
# second kind of missing stack; burn2to1's samples make dozens)
"$PERFKIT" profile -p "$burnid" 1 -U -f -d -a -F 499 --stack-storage-size 3 >"$T/prof3" 2>"$T/prof3.err"
expect 'profile DURATION -U -f -d -a --stack-storage-size 3: bcc'"'"'s options, after the duration' test $? = 0
sed 's/^/# /' "$T/prof3" | head -4
diag "$(grep -c EEXIST "$T/prof3") lines with EEXIST"
expect '--stack-storage-size 3: no ENOMEM (3 made 4)' sh -c "! grep -q ENOMEM '$T/prof3'"
expect '... -d adds no "-" without a kernel part (-U)' sh -c "grep -q '^burn2to1;' '$T/prof3' && ! grep -q ';-;\|;- ' '$T/prof3'"

# bcc profile's -L TID (one thread), -C CPU (one CPU's perf event) and
# -c COUNT (a sample every COUNT cpu-clock ns instead of -F)
"$PERFKIT" profile -L "$burnid" -c 2000000 -f 1 >"$T/profL" 2>"$T/profL.err"
expect 'profile -L TID -c 2000000: exit 0' test $? = 0
sed 's/^/# /' "$T/profL.err"
expect '-L: only that thread'"'"'s stacks' sh -c "test -s '$T/profL' && ! grep -qv '^burn2to1;' '$T/profL'"
expect '-c: "every 2000000 cpu-clock ns" in the banner' grep -q '^Sampling every 2000000 cpu-clock ns of one thread' "$T/profL.err"
"$PERFKIT" profile -C 0 1 >/dev/null 2>"$T/profC.err"
expect 'profile -C 0: one CPU'"'"'s event' sh -c "grep -q ' on CPU#0 for 1 secs' '$T/profC.err' && grep -q ' on 1 CPUs' '$T/profC.err'"
kill "$napid" "$burnid" 2>/dev/null; wait "$napid" "$burnid" 2>/dev/null
for bad in "-p 1 -L 1" "-F 99 -c 5000" "-c 10" "-C 65536"; do
	"$PERFKIT" profile $bad 1 >/dev/null 2>"$T/eb"
	expect "profile $bad: usage error (exit 2), one line" sh -c "test $? = 2 && test \$(wc -l <'$T/eb') = 1"
done
"$PERFKIT" profile -C 4096 1 >/dev/null 2>"$T/ec"
expect 'profile -C past the last CPU: exit 1, naming the CPUs' sh -c "test $? = 1 && grep -q '^perfkit profile: -C 4096: this machine.s CPUs are 0 to' '$T/ec'"

"$PERFKIT" offcputime --stack-storage-size 0 >/dev/null 2>"$T/e0"
expect 'offcputime --stack-storage-size 0: usage error (exit 2)' test $? = 2
expect '... naming the option' grep -q '^perfkit offcputime: --stack-storage-size' "$T/e0"
"$PERFKIT" offcputime -M 0 >/dev/null 2>"$T/e1"
expect 'offcputime -M 0: usage error, as bcc (no block is kept)' sh -c "test $? = 2 && grep -q '^perfkit offcputime: -M expects' '$T/e1'"
"$PERFKIT" offcputime -m 10 -M 5 >/dev/null 2>"$T/e2"
expect 'offcputime -m 10 -M 5: one line with both values' \
	grep -qx 'perfkit offcputime: -m (10 us) is above -M (5 us): no block can be kept' "$T/e2"
done_testing
