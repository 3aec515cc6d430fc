#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perf record's options that perf's own test suite (perftool-testsuite's
# perf_report setup: `perf record -asdg -e cpu-clock -- sleep`) and
# users' command lines pass: -s (--stat), -d (--data), -T, -P, -q, -N,
# -B, short options run together; an unknown one inside a group named as
# itself, not as the command's name.
. "$(dirname "$0")/lib.sh"

"$PERFKIT" record -xz -o "$T/x.data" true >/dev/null 2>"$T/x.err"
expect "an unknown short option in a group: exit 2 ($?)" test $? = 2
expect "... named '-x'" grep -q "unknown option '-x'" "$T/x.err"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/burn2to1
mkdir -p "$T/home"
HOME=$T/home "$PERFKIT" record -sdgTP -e cpu-clock -o "$T/d.data" -- "$W" 100 >/dev/null 2>"$T/d.err"
expect "-sdgTP: exit 0" test $? = 0
diag "$(tail -1 "$T/d.err")"
"$PERFKIT" report -i "$T/d.data" --header-only >"$T/d.head" 2>/dev/null
expect "-d: the samples carry ADDR, the data maps recorded" \
	grep -q 'sample_type = IP|TID|TIME|ADDR|CALLCHAIN|PERIOD|IDENTIFIER.*mmap_data = 1' "$T/d.head"
expect "-s: inherit_stat" grep -q 'inherit_stat = 1' "$T/d.head"
"$PERFKIT" script -i "$T/d.data" >"$T/d.txt" 2>/dev/null
expect "... and the file reads: script shows the workload" grep -q "burn2to1" "$T/d.txt"
if have perf; then
	perf script -i "$T/d.data" >"$T/d.perf" 2>/dev/null
	expect "... as perf script does" cmp -s "$T/d.perf" "$T/d.txt"
fi

HOME=$T/home2 "$PERFKIT" record -q -N -o "$T/q.data" -- "$W" 50 >/dev/null 2>"$T/q.err"
expect "-q: exit 0, nothing on stderr" sh -c "test $? = 0 && test ! -s '$T/q.err'"
expect "-N: nothing written to ~/.debug" test ! -e "$T/home2/.debug"
HOME=$T/home3 "$PERFKIT" record -B -o "$T/b.data" -- "$W" 50 >/dev/null 2>&1
expect "-B: nothing in ~/.debug" test ! -e "$T/home3/.debug"
# the header's build-id table (HEADER_BUILD_ID): perf's buildid-list reads it
"$PERFKIT" report -i "$T/q.data" --header-only >"$T/q.head" 2>/dev/null
"$PERFKIT" report -i "$T/b.data" --header-only >"$T/b.head" 2>/dev/null
expect "-N: the feature BUILD_ID kept" sh -c "! grep -q 'missing features:.* BUILD_ID' '$T/q.head'"
expect "-B: no BUILD_ID feature" grep -q 'missing features:.* BUILD_ID' "$T/b.head"
if have perf; then
	perf buildid-list -i "$T/q.data" >"$T/q.bid" 2>/dev/null
	expect "-N: perf buildid-list shows the workload's build-id" grep -Eq "^[0-9a-f]{40} .*burn2to1\$" "$T/q.bid"
fi
"$PERFKIT" report -i "$T/b.data" --stdio -g none >"$T/b.rep" 2>/dev/null
expect "... and it reports: the workload's function" grep -q 'burn_' "$T/b.rep"
"$PERFKIT" record -m 3 -q -o "$T/m3.data" -- "$W" 20 >/dev/null 2>"$T/m3.err"
expect "-m 3: rounded up to 4 pages, as perf ($(head -1 "$T/m3.err"))" \
	sh -c "test $? = 0 && grep -qx 'rounding mmap pages size to 16K (4 pages)' '$T/m3.err'"
"$PERFKIT" record -F max -q -o "$T/fm.data" -- "$W" 20 >/dev/null 2>"$T/fm.err"
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
expect "-F max: the kernel's maximum rate ($max Hz)" \
	sh -c "grep -qx 'info: Using a maximum frequency rate of $max Hz' '$T/fm.err' &&
		'$PERFKIT' evlist -F -i '$T/fm.data' | grep -qx 'cpu-clock: sample_freq=$max'"
"$PERFKIT" record --no-inherit --sample-cpu -q -o "$T/ni.data" -- "$W" 20 >/dev/null 2>&1
"$PERFKIT" evlist -v -i "$T/ni.data" >"$T/ni.ev"
expect "--sample-cpu: CPU in the samples" grep -q 'sample_type: IP|TID|TIME|CPU|PERIOD' "$T/ni.ev"
expect_fail "--no-inherit: no inherit" grep -q 'inherit: 1' "$T/ni.ev"
# --all-user / --all-kernel (perf's): every event samples one side only
"$PERFKIT" record --all-kernel -o "$T/ak.data" -- ls -R /usr/share/doc >/dev/null 2>&1
"$PERFKIT" record --all-user -o "$T/au.data" -- ls -R /usr/share/doc >/dev/null 2>&1
expect "--all-kernel: exclude_user in the event's attr" \
	sh -c "'$PERFKIT' report --header-only -i '$T/ak.data' | grep '^# event' | grep -q 'exclude_user = 1'"
nk=$("$PERFKIT" script -i "$T/ak.data" -F ip,dso 2>/dev/null | grep -c 'kernel')
nu=$("$PERFKIT" script -i "$T/ak.data" -F ip,dso 2>/dev/null | grep -vc 'kernel')
expect "--all-kernel: kernel samples only ($nk kernel, $nu not)" test "$nk" -gt 0 -a "$nu" -eq 0
nk=$("$PERFKIT" script -i "$T/au.data" -F ip,dso 2>/dev/null | grep -c 'kernel')
expect "--all-user: no kernel sample ($nk)" test "$nk" -eq 0
# -D MSECS (perf's --delay): the events start that long after the command,
# with perf's two lines; the command's name and maps are there (written when
# the events start: its exec happened while they were off)
B=$PK_BUILD/tests/workloads/burn2to1
# (burn2to1 burns 600 ms of CPU: ~600 samples, fewer by the CPU time it had
# in the delay's 400 ms of wall time, however loaded the machine)
"$PERFKIT" record -D 400 -F 999 -o "$T/d.data" -- "$B" 600 >/dev/null 2>"$T/d.err"
n=$(sed -n 's/^\[ perfkit record: \([0-9]*\) samples.*/\1/p' "$T/d.err")
expect "-D 400 of a 600 ms command: its first part not sampled ($n of about 600)" test "${n:-0}" -gt 50 -a "${n:-0}" -lt 540
expect "... 'Events disabled', then 'Events enabled', as perf" \
	sh -c "head -2 '$T/d.err' | tr '\n' ' ' | grep -q '^Events disabled Events enabled '"
expect "... the samples named (burn_two in burn2to1)" \
	sh -c "'$PERFKIT' report --stdio --no-children -i '$T/d.data' 2>/dev/null | grep -q 'burn2to1 *burn2to1 *\[\.\] burn_two'"
"$PERFKIT" record -D 2000 -o "$T/d2.data" -- true >/dev/null 2>"$T/d2.err"
expect "-D longer than the command: no sample, no 'Events enabled', exit 0" \
	sh -c "[ $? -eq 0 ] && ! grep -q 'Events enabled' '$T/d2.err' && grep -q ' 0 samples' '$T/d2.err'"
done_testing
