#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An ordinary user at perf_event_paranoid=2 may count its own processes in
# user space only: stat (and record) fall back to that as perf does, mark
# the events ":u" and say so in one line (stat -- true failed with "no
# permission").  Run as the user nobody (CI is root); skipped visibly when
# that is impossible or the level is not 2.
. "$(dirname "$0")/lib.sh"

level=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo none)
if [ "$level" != 2 ]; then
	skip "perf_event_paranoid is $level, not 2"
	done_testing; exit
fi
if [ "$(id -u)" = 0 ]; then
	have setpriv || { skip "no setpriv to run as nobody"; done_testing; exit; }
	as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
	as_user() { "$@"; }
fi
chmod 777 "$T"   # nobody writes the recording here
if ! as_user "$PERFKIT" --version >/dev/null 2>&1; then
	skip "$PERFKIT cannot be run as an ordinary user here"
	done_testing; exit
fi
cd "$T" || exit 1

as_user "$PERFKIT" stat -x, -e task-clock,page-faults -- true >"$T/out" 2>"$T/err"
expect "stat -- true as a user at paranoid 2: exit 0" test $? = 0
expect "... one line says user space only" test "$(grep -c 'paranoid=2: counting user space only' "$T/err")" = 1
expect "... task-clock counted as task-clock:u" grep -q '^[0-9.]*,msec,task-clock:u,' "$T/err"
expect "... page-faults:u counted (> 0)" grep -Eq '^[1-9][0-9]*,,page-faults:u,' "$T/err"

as_user "$PERFKIT" stat -- true >"$T/out2" 2>"$T/err2"
expect "stat -- true (default events): exit 0" test $? = 0
expect "... task-clock:u in the table" grep -q 'msec task-clock:u' "$T/err2"

as_user "$PERFKIT" stat -e task-clock:k -- true >/dev/null 2>"$T/err3"
expect "stat -e task-clock:k (kernel only asked): refused, exit 1" test $? = 1
expect "... naming perf_event_paranoid" grep -q 'perf_event_paranoid' "$T/err3"

as_user "$PERFKIT" record -o "$T/u.data" -- "$PK_BUILD/tests/workloads/burn2to1" 10 >/dev/null 2>"$T/rerr"
expect "record as a user at paranoid 2: exit 0" test $? = 0
expect "... one line says user space only" test "$(grep -c 'paranoid=2: sampling user space only' "$T/rerr")" = 1
expect "... the summary line" grep -q '^\[ perfkit record: ' "$T/rerr"

# top -p on the user's own process: its header says user space only
as_user sh -c 'echo $$ >"$1"; exec "$2" 100000' - "$T/bp" "$PK_BUILD/tests/workloads/burn2to1" &
job=$!
sleep 0.5
bp=$(cat "$T/bp")
as_user "$PERFKIT" top --stdio -p "$bp" -d 0.5 -n 1 >"$T/top" 2>&1
kill "$bp" 2>/dev/null; wait "$job" 2>/dev/null
sed "s/^/# /" "$T/top" | head -3
expect "top -p as a user at paranoid 2: the header says user space only" \
	grep -q '^# perfkit top: .*user space only (perf_event_paranoid)' "$T/top"
done_testing
