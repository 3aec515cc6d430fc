#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit top keeps one session in memory: it writes no file (no private
# perf.data per refresh), checked with strace (no open for writing, no
# file created, renamed or removed) over several refreshes with processes
# starting and exiting meanwhile, and with an empty TMPDIR that stays empty.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
( for i in $(seq 200); do /bin/true; sleep 0.01; done ) &
loop=$!
trap 'kill $loop 2>/dev/null; wait $loop 2>/dev/null; rm -rf "$T"' EXIT

timeout 30 "$PERFKIT" top --stdio -d 0.2 -n 5 >"$T/out" 2>"$T/err"
expect "top --stdio -d 0.2 -n 5: exit 0" test $? = 0
expect "five refreshes" test "$(grep -c '^# perfkit top:' "$T/out")" = 5
expect "TMPDIR stays empty" test -z "$(ls -A "$TMPDIR")"

if have strace; then
	# (LeakSanitizer cannot run under a tracer: it ptraces the process itself)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 60 strace -f -qq -o "$T/trace" -e trace=open,openat,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat \
		"$PERFKIT" top --stdio -d 0.2 -n 5 >"$T/out2" 2>"$T/err2"
	expect "under strace: exit 0" test $? = 0
	# the calls themselves (a file name may say "mkdir": top reads the
	# binaries of the processes it sees)
	grep -E '^[0-9]+ +((open|openat)\(.*(O_WRONLY|O_RDWR|O_CREAT)|(creat|rename|renameat|renameat2|unlink|unlinkat|mkdir|mkdirat)\()' \
		"$T/trace" | grep -v '= -1' >"$T/writes" || true
	expect "no file opened for writing, created, renamed or removed" test ! -s "$T/writes"
	diag "$(head -5 "$T/writes")"
	n=$(grep -c 'kallsyms' "$T/trace" || true)
	expect "/proc/kallsyms opened at most once over 5 refreshes ($n)" test "$n" -le 2
else
	skip "strace not installed"
fi
done_testing
