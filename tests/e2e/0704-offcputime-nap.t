#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit offcputime: napper spins 2 s in spin_here() and sleeps 200 ms
# in nap_here(): the folded stack through nap_here carries 200 ms ± 20 % of
# off-CPU time, the process had exited long before the tool printed (its
# frames are named from the snapshot taken while it ran), and the folded
# output draws with perfkit flamegraph --colors=io --countname=us.  Then
# the default layout (bcc's), and usage errors.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require
NAP=$PK_BUILD/tests/workloads/napper
cp "$NAP" "$T/napx"   # a comm of its own: napx

if tracer_start "$T/out" "$T/err" "$PERFKIT" offcputime -f -u; then
	"$T/napx" 200 2000 1 >/dev/null   # 2 s of spin first: time to snapshot it on a loaded machine (1 s was short once under ASan at load 10)
	sleep 0.5   # the process is gone well before the tool prints
	tracer_stop
	expect 'Ctrl-C ends it with status 0' test $? = 0
	grep '^napx;' "$T/out" | sed 's/^/# /'
	us=$(awk '/^napx;/ && /;nap_here;/ { s += $NF } END { print s + 0 }' "$T/out")
	expect "nap_here's stack carries 200 ms ± 20 % off-CPU ($us us)" \
		test "$us" -ge 160000 -a "$us" -le 240000
	expect 'its frames named after exit: napx;...;main;nap_here;...' \
		grep -Eq '^napx;([^;]*;)*main;nap_here;' "$T/out"
	expect 'no [unknown] frame on the nap_here stack' \
		test "$(grep -E '^napx;.*;nap_here;' "$T/out" | grep -c '\[unknown\]')" = 0
	expect 'the kernel part ends in the scheduler' \
		grep -Eq '^napx;.*;nap_here;.*schedule [0-9]+$' "$T/out"
	expect 'kernel frames as bcc names them (no _[k]: its offcputime has no -a)' \
		sh -c "! grep -q '_\[k\]' '$T/out'"
	"$PERFKIT" flamegraph --colors=io --countname=us "$T/out" >"$T/off.svg" 2>"$T/fg.err"
	expect 'folded output draws with flamegraph --colors=io --countname=us' test $? = 0
	expect 'the SVG shows nap_here in microseconds' grep -Eq 'nap_here \([0-9,]+ us' "$T/off.svg"
else
	not_ok 'offcputime starts'
fi

# bcc's layout, for one process (-p): frames, "-  comm (pid)", microseconds
# (napper naps 300 ms 20 times: some naps fall inside the second traced)
"$NAP" 300 10 20 >"$T/pid" &
napid=$!
for i in $(seq 50); do [ -s "$T/pid" ] && break; sleep 0.05; done
if tracer_start "$T/out2" "$T/err2" "$PERFKIT" offcputime -p "$napid" -U; then
	sleep 1.2
	tracer_stop
	kill $napid; wait $napid 2>/dev/null
	sed 's/^/# /' "$T/out2" | head -20
	expect 'default layout: user frames, then "-  comm (pid)" and a count' \
		awk -v p="$napid" '/^    nap_here$/ { f = 1 } f && $0 ~ "^    -  +napper \\(" p "\\)$" { g = 1; next }
			g && /^        [0-9]+$/ { ok = 1 } END { exit !ok }' "$T/out2"
	expect '-U: no kernel frames' test "$(grep -c -- '^    --$' "$T/out2")" = 0
else
	not_ok 'offcputime -p starts'
	kill $napid 2>/dev/null
fi

# bcc's banner: "for N secs." with a duration, "Hit Ctrl-C to end." without
"$PERFKIT" offcputime -U 1 >/dev/null 2>"$T/e0"
expect 'banner with a duration: bcc'"'"'s "for 1 secs."' grep -qx 'Tracing off-CPU time (us) of all threads by user stack for 1 secs.' "$T/e0"
expect 'banner without one: "Hit Ctrl-C to end."' grep -q 'stack\.\.\. Hit Ctrl-C to end\.$' "$T/err2"

"$PERFKIT" offcputime -u -k >/dev/null 2>"$T/e1"
expect '-u with -k: usage error (exit 2)' test $? = 2
"$PERFKIT" offcputime -m 10 -M 5 >/dev/null 2>&1
expect '-m above -M: usage error' test $? = 2
"$PERFKIT" offcputime -m x >/dev/null 2>"$T/e2"
expect '-m x: usage error naming -m' grep -q '^perfkit offcputime: -m expects' "$T/e2"
# the multi-line form separates the kernel and user parts with "--" only
# under -d, as libbpf-tools' and bcc's offcputime and profile
"$NAP" 200 10 20 >/dev/null &
napid=$!
"$PERFKIT" offcputime -p "$napid" 1 >"$T/nod" 2>/dev/null
"$PERFKIT" offcputime -d -p "$napid" 1 >"$T/withd" 2>/dev/null
kill $napid; wait $napid 2>/dev/null
expect 'no -d: no "--" between the parts' test "$(grep -c -- '^    --$' "$T/nod")" = 0
expect '-d: "--" between a kernel and a user part' test "$(grep -c -- '^    --$' "$T/withd")" -gt 0
done_testing
