#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A recording whose DSO path names a FIFO (an attacker's choice in a
# shared directory, or a file replaced since): every reader refuses it as
# not a regular file, with one warning, and finishes; before, report,
# script, collapse and annotate blocked forever in open(2).  And diff
# keeps two tracepoints of one subsystem apart (it cut names at the first
# ':', to drop perf's modifiers).
. "$(dirname "$0")/lib.sh"

perf_event_require
W=$PK_BUILD/tests/workloads/calltree
[ -x "$W" ] || { skip "no calltree workload"; done_testing; exit; }
# a copy under a name as long as the FIFO's, so the path can be swapped
# byte for byte in the file
mkdir -p "$T/d"
cp "$W" "$T/d/prog_xxxxxxx"
"$PERFKIT" record -g -F 2000 -o "$T/p.data" -- "$T/d/prog_xxxxxxx" 200 >/dev/null 2>&1
mkfifo "$T/d/fifo_xxxxxxx"
python3 - "$T/p.data" "$T/f.data" "$T/d/prog_xxxxxxx" "$T/d/fifo_xxxxxxx" <<'P'
import sys
d = open(sys.argv[1], 'rb').read()
open(sys.argv[2], 'wb').write(d.replace(sys.argv[3].encode(), sys.argv[4].encode()))
P
for c in "report --stdio" "script" "annotate --stdio"; do
	timeout 60 "$PERFKIT" $c -i "$T/f.data" >/dev/null 2>"$T/err"; rc=$?
	expect "$c on a DSO path that is a FIFO: finishes (rc $rc, not 124)" test $rc != 124
	expect "... and says why its symbols are missing" grep -q 'fifo_xxxxxxx: not a regular file' "$T/err"
done
timeout 60 "$PERFKIT" collapse "$T/f.data" >/dev/null 2>&1; rc=$?
expect "collapse on it: finishes (rc $rc)" test $rc = 0

# an event name with an escape sequence (the file's EVENT_DESC): escaped in
# report's "# Samples" line and diff's "# Event" line, never raw
python3 - "$T/p.data" "$T/e.data" <<'P'
import sys
d = open(sys.argv[1], 'rb').read()
open(sys.argv[2], 'wb').write(d.replace(b'cpu-clock', b'\x1b[2Jclock'))
P
"$PERFKIT" report --stdio -i "$T/e.data" >"$T/e.out" 2>&1
"$PERFKIT" diff "$T/p.data" "$T/e.data" >>"$T/e.out" 2>&1
expect_fail "an escape in an event name is not printed raw" grep -q "$(printf '\033')" "$T/e.out"
expect "... but shown as \\x1b" grep -q 'x1b\[2Jclock' "$T/e.out"

# diff: sched:sched_switch and sched:sched_wakeup are two events
tf=""
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do [ -d "$d/events/sched" ] && tf=$d; done
if [ -n "$tf" ] && "$PERFKIT" record -e sched:sched_switch -o "$T/sw.data" -- sleep 0.05 >/dev/null 2>&1 &&
   "$PERFKIT" record -e sched:sched_wakeup -o "$T/wk.data" -- sh -c 'sleep 0.05 & wait' >/dev/null 2>&1; then
	"$PERFKIT" diff "$T/sw.data" "$T/wk.data" >"$T/diff.out" 2>&1
	expect "diff: a tracepoint keeps its whole name" grep -q "# Event 'sched:sched_switch'" "$T/diff.out"
	expect_fail "diff: two tracepoints are not one event 'sched'" grep -qi "event 'sched'" "$T/diff.out"
else
	skip "no sched tracepoints here (tracefs)"
	skip "no sched tracepoints here (tracefs)"
fi
done_testing
