#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Samples in anonymous executable memory with no /tmp/perf-PID.map (JIT
# code nobody named; common in a system-wide profile): perf report and
# perf script say nothing about the missing map, and neither do perfkit
# report, script, collapse and flamegraph; with -v, report and script say it
# once (perf's -v note), even when an earlier frame of the process (an
# address in no mapping) resolved without asking for it.  The anonymous code
# keeps the map's name as its DSO, as perf: "/tmp/perf-PID.map" in script,
# "[JIT] tid PID" in report's column (and "[JIT] tid PID[ADDR]" as its
# srcline), "[perf-PID.map]" in a folded stack.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/anonexec
"$PERFKIT" record -g -o "$T/a.data" -- "$W" 200 >/dev/null 2>&1
expect 'recorded' test -s "$T/a.data"
quiet() {   # quiet NAME COMMAND... — the command's stderr names no JIT map
	local d=$1; shift
	"$@" >/dev/null 2>"$T/err" </dev/null
	expect_fail "$d: no warning about the missing JIT map" grep -q 'JIT symbol map\|perf-[0-9]*\.map' "$T/err"
}
quiet report "$PERFKIT" report --stdio -i "$T/a.data"
quiet script "$PERFKIT" script -i "$T/a.data"
quiet collapse "$PERFKIT" collapse "$T/a.data"
quiet flamegraph "$PERFKIT" flamegraph "$T/a.data"
"$PERFKIT" report -v --stdio -i "$T/a.data" >/dev/null 2>"$T/err"
expect 'report -v: the note, once' test "$(grep -c 'no JIT symbol map' "$T/err")" = 1
"$PERFKIT" script --verbose -i "$T/a.data" >/dev/null 2>"$T/err"
expect 'script --verbose: the note' grep -q 'perf-[0-9]*\.map: no JIT symbol map' "$T/err"
pid=$("$PERFKIT" script -F pid -i "$T/a.data" 2>/dev/null | tr -d ' ' | sort | uniq -c | sort -rn | awk 'NR==1{print $2}')
"$PERFKIT" script -F ip,sym,dso -i "$T/a.data" >"$T/s.txt" 2>/dev/null
expect "script: the anonymous code's DSO is /tmp/perf-$pid.map" grep -q "\[unknown\] (/tmp/perf-$pid\.map)\$" "$T/s.txt"
expect_fail '... not //anon' grep -q '//anon' "$T/s.txt"
"$PERFKIT" report --stdio --sort dso -i "$T/a.data" >"$T/r.txt" 2>/dev/null
expect "report --sort dso: [JIT] tid $pid" grep -q "%  \[JIT\] tid $pid *\$" "$T/r.txt"
"$PERFKIT" collapse "$T/a.data" >"$T/c.folded" 2>/dev/null
expect "collapse: [perf-$pid.map] frames" grep -q "\[perf-$pid\.map\]" "$T/c.folded"
if have perf; then
	perf report --stdio -i "$T/a.data" >/dev/null 2>"$T/perr"
	expect_fail 'perf report is silent about it too' grep -q 'perf-[0-9]*\.map' "$T/perr"
	# the JIT line only: lines of equal share may come in another order
	perf report --stdio --sort dso -g none -i "$T/a.data" 2>/dev/null | grep 'JIT' | sed 's/ *$//' >"$T/pr.txt"
	"$PERFKIT" report --stdio --sort dso -g none -i "$T/a.data" 2>/dev/null | grep 'JIT' | sed 's/ *$//' >"$T/kr.txt"
	expect "report --sort dso -g none: perf's [JIT] line ($(cat "$T/kr.txt"))" diff "$T/pr.txt" "$T/kr.txt"
	perf report --stdio --sort dso,srcline -g none -i "$T/a.data" 2>/dev/null | grep 'JIT' | sed 's/ *$//' | LC_ALL=C sort >"$T/pr.txt"
	"$PERFKIT" report --stdio --sort dso,srcline -g none -i "$T/a.data" 2>/dev/null | grep 'JIT' | sed 's/ *$//' | LC_ALL=C sort >"$T/kr.txt"
	expect "report --sort dso,srcline: perf's '[JIT] tid PID[ADDR]' lines ($(wc -l <"$T/kr.txt"))" \
		sh -c "test -s '$T/kr.txt' && diff '$T/pr.txt' '$T/kr.txt'"
fi
done_testing
