#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The eBPF tools' -p PID (profile, opensnoop, tcplife, funclatency) filter by
# process id in the kernel: a PID with no process, or a thread id that is not
# its process's id, would match nothing and the tool would print nothing.
# Each refuses it in one line (bpfk_check_pid, shared); a live PID is
# accepted.  flamegraph --encoding is checked against the XML EncName grammar
# and the encodings this system knows.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"

# a PID with no process: the first free one from 999999 down
nopid=999999
while [ -e /proc/$nopid ]; do nopid=$((nopid - 1)); done

for tool in profile opensnoop tcplife "funclatency c:malloc"; do
	name=${tool%% *}
	# shellcheck disable=SC2086
	"$PERFKIT" $tool -p $nopid >"$T/out" 2>"$T/err"; rc=$?
	expect "$name -p $nopid (no such process): exit 1 ($rc)" test $rc -eq 1
	expect "$name: one line, 'no process with PID $nopid'" \
		test "$(cat "$T/err")" = "perfkit $name: no process with PID $nopid"
done

python3 -c 'import threading, time; threading.Thread(target=time.sleep, args=(30,)).start(); time.sleep(30)' &
pp=$!
trap 'kill $pp 2>/dev/null; wait $pp 2>/dev/null; rm -rf "$T"' EXIT
for i in $(seq 50); do [ "$(ls /proc/$pp/task 2>/dev/null | wc -l)" -ge 2 ] && break; sleep 0.1; done
tid=$(ls /proc/$pp/task | grep -vx "$pp" | head -1)
"$PERFKIT" opensnoop -p "$tid" -d 0.1 >"$T/out" 2>"$T/err"; rc=$?
expect "opensnoop -p THREAD-ID: exit 1 ($rc)" test $rc -eq 1
expect "… naming the process to give" grep -qx "perfkit opensnoop: PID $tid is a thread of process $pp; give -p $pp" "$T/err"

echo "a;b 1" >"$T/f.folded"
"$PERFKIT" flamegraph --encoding 'utf"8' "$T/f.folded" >"$T/f.svg" 2>"$T/err"; rc=$?
expect "flamegraph --encoding 'utf\"8': usage error (2)" test $rc -eq 2
expect "… saying the encoding is not one this system knows" grep -q "encoding: 'utf\"8' is not an encoding name" "$T/err"
"$PERFKIT" flamegraph --encoding utf8x "$T/f.folded" >/dev/null 2>&1; rc=$?
expect "flamegraph --encoding utf8x (unknown): usage error (2)" test $rc -eq 2
"$PERFKIT" flamegraph --encoding ISO-8859-1 "$T/f.folded" >"$T/f.svg" 2>/dev/null; rc=$?
expect "flamegraph --encoding ISO-8859-1: accepted, in the declaration" \
	test $rc -eq 0 -a "$(head -c 60 "$T/f.svg")" = '<?xml version="1.0" encoding="ISO-8859-1" standalone="no"?>'

bpf_require
"$PERFKIT" opensnoop -p $pp -d 0.2 >"$T/out" 2>"$T/err"; rc=$?
expect "opensnoop -p LIVE-PID: runs (exit 0, $rc)" test $rc -eq 0
"$PERFKIT" profile -p $pp 1 >"$T/out" 2>"$T/err"; rc=$?
expect "profile -p LIVE-PID 1: runs (exit 0, $rc)" test $rc -eq 0

done_testing
