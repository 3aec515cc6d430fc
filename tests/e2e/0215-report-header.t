#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit report --header-only prints perf 6.1's `perf report --header-only`
# lines for what the file holds: captured on, header version, offsets,
# hostname, os release, perf version, arch, nrcpus, cpudesc, cpuid, total
# memory, cmdline, one "# event :" line per event (perf's attribute list),
# the topology notes, pmu mappings, group, sample times, clockid, compressed,
# reference time, missing features — on perf's recordings (plain, -z -k mono,
# an event group, pipe mode, a tracepoint) and on perfkit's.  perf's
# bpf_prog_info/btf lines (programs loaded at record time) are not printed
# by perfkit and are left out of the comparison.
. "$(dirname "$0")/lib.sh"

if ! have perf; then skip "perf (the oracle) is not installed"; done_testing; exit; fi
if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/burn2to1
export TZ=UTC

perf record -q -e cpu-clock:u -g -o "$T/plain.data" -- "$W" 30 >/dev/null 2>&1
perf record -q -k mono -z -e cpu-clock:u -o "$T/kz.data" -- "$W" 30 >/dev/null 2>&1
perf record -q -e '{cpu-clock,task-clock}:u' -o "$T/grp.data" -- "$W" 30 >/dev/null 2>&1
perf record -q -e cpu-clock:u -o - -- "$W" 30 2>/dev/null >"$T/pipe.data"
perf record -q -e cpu-clock:u -e sched:sched_process_exit -o "$T/tp.data" -- "$W" 30 >/dev/null 2>&1
"$PERFKIT" record -g -o "$T/pk.data" -- "$W" 30 >/dev/null 2>&1
# quotes in the command line: perf prints each as \'
"$PERFKIT" record -o "$T/quote.data" -- sh -c "'$W' 30" >/dev/null 2>&1

for d in plain kz grp pipe tp pk quote; do
	if ! [ -s "$T/$d.data" ]; then skip "$d.data: not recorded here"; continue; fi
	perf report --header-only -i "$T/$d.data" 2>/dev/null |
		grep -Ev '^# (bpf_prog_info|btf info|cpu pmu capabilities|hybrid)' >"$T/$d.perf"
	"$PERFKIT" report --header-only -i "$T/$d.data" >"$T/$d.pk" 2>"$T/$d.err"
	n=$(grep -c '' "$T/$d.perf")
	if [ "$n" -gt 8 ] && cmp -s "$T/$d.perf" "$T/$d.pk"; then
		ok "$d: perf's $n header lines"
	else
		not_ok "$d: perf's header lines ($n)"
		diff "$T/$d.perf" "$T/$d.pk" | head -8 | while IFS= read -r l; do diag "$l"; done
		head -2 "$T/$d.err" | while IFS= read -r l; do diag "$l"; done
	fi
done
expect "a quote in the cmdline written \\'" grep -qF "# cmdline : $PERFKIT record -o $T/quote.data -- sh -c \\'$W\\' 30 " "$T/quote.pk"
expect 'the event line holds the attributes' grep -q '^# event : name = cpu-clock:u, , id = {.*sample_type = IP|TID|TIME|CALLCHAIN' "$T/plain.pk"
[ -s "$T/kz.data" ] && expect 'compressed and clock data shown' grep -q '^# compressed : Zstd' "$T/kz.pk"
[ -s "$T/grp.data" ] && expect 'the group shown' grep -qF '# group: {cpu-clock,task-clock}' "$T/grp.pk"
# a pipe on standard input too
cat "$T/pipe.data" | "$PERFKIT" report --header-only | grep -v '^# captured on' >"$T/stdin.pk"
grep -v '^# captured on' "$T/pipe.perf" >"$T/pipe.nocap"
same_file 'pipe-mode data on standard input: the same lines' "$T/pipe.nocap" "$T/stdin.pk"

# --header: the header, then the report
"$PERFKIT" report --header -i "$T/plain.data" --stdio >"$T/both" 2>/dev/null
expect '--header: the header first' grep -q '^# hostname : ' "$T/both"
expect '--header: then the report rows' grep -q 'burn_one' "$T/both"
# not a perf.data: one line, exit 1
echo 'not perf data' >"$T/bad.data"
"$PERFKIT" report --header-only -i "$T/bad.data" >/dev/null 2>"$T/err"
expect 'not a perf.data: exit 1' test $? = 1
expect '... one line naming the file' test "$(grep -c "$T/bad.data" "$T/err")" = 1
done_testing
