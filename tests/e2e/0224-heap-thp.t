#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The commands that read large profiles (report, script, diff, annotate;
# collapse when its input is a perf.data) start themselves
# once more with glibc's malloc tunable glibc.malloc.hugetlb=1, so that the
# heap is in transparent huge pages (src/perfkit.c heap_thp: a compile
# job's default report, 4.4 s of CPU -> 2.9 s on a hypervisor where a
# 4 KiB fault costs about 10 us).  Checked on the process itself, waiting
# on a FIFO for its input: its environment as it started
# (/proc/PID/environ) and its arguments.  A user's own GLIBC_TUNABLES is
# kept and PERFKIT_NO_HEAP_THP turns it off; a command that runs programs
# (record) is not restarted and its program sees neither variable, nor
# are flamegraph and diff-folded, nor a build with the sanitizers (their
# allocator is not glibc's).
. "$(dirname "$0")/lib.sh"

thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
case $thp in
*"[always]"* | *"[madvise]"*) ;;
*) skip "transparent huge pages off here ('${thp:-no /sys/kernel/mm/transparent_hugepage}')"; done_testing; exit ;;
esac

# started ENV... -- CMD ARGS...: the environment and arguments of perfkit
# CMD ARGS (its input a FIFO: "-i FIFO" after ARGS, or in place of an
# argument @IN@) once it waits on the FIFO, in $T/env, $T/args
started() {
	local envs=() args=() a pid in=1
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	for a in "$@"; do
		if [ "$a" = @IN@ ]; then args+=("$T/in"); in=0; else args+=("$a"); fi
	done
	[ $in = 1 ] && args+=(-i "$T/in")
	rm -f "$T/in" "$T/env" "$T/args"
	mkfifo "$T/in"
	env "${envs[@]}" "$PERFKIT" "${args[@]}" >/dev/null 2>&1 &
	pid=$!
	# the restart done: the process waits to open the FIFO
	wait_until 10 grep -q "wait_for_partner\|fifo" "/proc/$pid/wchan" 2>/dev/null ||
		sleep 1
	tr '\0' '\n' <"/proc/$pid/environ" >"$T/env" 2>/dev/null
	tr '\0' ' ' <"/proc/$pid/cmdline" >"$T/args" 2>/dev/null
	cat "/proc/$pid/comm" >"$T/comm" 2>/dev/null
	# its mappings asked for huge pages (madvise: VmFlags "hg")
	grep -c '^VmFlags:.* hg' "/proc/$pid/smaps" >"$T/hg" 2>/dev/null
	# a writer opens and closes it: empty input, the command ends (not
	# waiting for a reader that is gone: a command that failed at once)
	timeout 10 sh -c ': >"$1"' sh "$T/in"
	wait $pid 2>/dev/null
}

# restarted: a line GLIBC_TUNABLES=glibc.malloc.hugetlb=1 in $T/env;
# not: no GLIBC_TUNABLES nor PERFKIT_HEAP_THP
restarted() { grep -qx 'GLIBC_TUNABLES=glibc.malloc.hugetlb=1' "$T/env"; }
not_restarted() { test -s "$T/env" && test "$(grep -c '^GLIBC_TUNABLES=\|^PERFKIT_HEAP_THP=' "$T/env")" -eq 0; }

printf 'PERFILE2' >"$T/magic.data"
if [ -n "${PK_SAN:-}" ]; then
	# the sanitizers' allocator is not glibc's: a restart would only start
	# their runtime twice (90 ms a report)
	for c in report script "collapse @IN@ $T/magic.data"; do
		started -- $c
		expect "${c%% *} under the sanitizers: not restarted" not_restarted
	done
	done_testing
	exit
fi
started -- report --stdio
expect "report: restarted with glibc.malloc.hugetlb=1" restarted
expect "report: its arguments as given" grep -q "report --stdio -i $T/in $" "$T/args"
expect "report: its name kept ($(cat "$T/comm"), not exe)" test "$(cat "$T/comm")" = "$(basename "$(readlink -f "$PERFKIT")" | cut -c1-15)"
started -- script
expect "script: restarted with glibc.malloc.hugetlb=1" restarted
# collapse: restarted for a perf.data among its inputs (its magic); not
# for text, whose parser asks for huge pages under the heap itself when
# the input is large (xheap_thp: a file of 16 MB or more, or 4 MB read from
# a pipe), saving the second start: seen as it waits on the FIFO after
# reading a 17 MB file, against a small one
printf 'a 1 1.0: 1 cpu-clock:\n\t1 f (/x)\n\n' >"$T/small.txt"
truncate -s 17M "$T/big.txt"
started -- collapse @IN@ "$T/magic.data"
expect "collapse of a perf.data: restarted" restarted
started -- collapse "$T/big.txt" @IN@
expect "collapse of a 17 MB text file: not restarted" not_restarted
expect "... its heap asked for huge pages ($(cat "$T/hg") mappings)" test "$(cat "$T/hg")" -ge 1
started PERFKIT_NO_HEAP_THP=1 -- collapse "$T/big.txt" @IN@
expect "... not with PERFKIT_NO_HEAP_THP ($(cat "$T/hg") mappings)" test "$(cat "$T/hg")" -eq 0
started -- collapse "$T/small.txt" @IN@
expect "collapse of a small text file: not restarted" not_restarted
expect "... and no huge pages asked for ($(cat "$T/hg") mappings)" test "$(cat "$T/hg")" -eq 0
started -- collapse @IN@
expect "collapse of a FIFO: not restarted" not_restarted
# the folded stacks' commands: not restarted (nothing to gain)
started -- flamegraph @IN@
expect "flamegraph: not restarted" not_restarted
started -- diff-folded @IN@ "$T/small.txt"
expect "diff-folded: not restarted" not_restarted
started GLIBC_TUNABLES=glibc.malloc.perturb=0 -- report --stdio
expect "a user's GLIBC_TUNABLES kept as it is" grep -qx 'GLIBC_TUNABLES=glibc.malloc.perturb=0' "$T/env"
expect "... and no restart" test "$(grep -c '^GLIBC_TUNABLES=\|^PERFKIT_HEAP_THP=' "$T/env")" -eq 1
started PERFKIT_NO_HEAP_THP=1 -- report --stdio
expect "PERFKIT_NO_HEAP_THP: no restart" not_restarted
# under valgrind (its preload library): no restart, which would run natively
# (not under the sanitizers: their runtime wants to be loaded first)
if [ -z "${PK_SAN:-}" ]; then
	started LD_PRELOAD=/nonexistent/vgpreload_memcheck-amd64-linux.so -- report --stdio
	expect "under valgrind: no restart" not_restarted
else
	skip "a preload library under the sanitizers"
fi
# started by the dynamic loader by hand: not restarted as the loader (which
# took argv[1], "report", for the program: exit 127)
ldso=$(ls /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1 2>/dev/null | head -1)
if [ -n "$ldso" ] && [ -z "${PK_SAN:-}" ]; then
	: >"$T/empty.data"
	"$ldso" "$PERFKIT" report --stdio -i "$T/empty.data" >/dev/null 2>"$T/ldso.err"
	rc=$?
	expect "started by $ldso: report runs (exit 1, its own error; got $rc)" \
		sh -c "[ $rc = 1 ] && grep -q 'not a perf.data file' '$T/ldso.err'"
else
	skip "no dynamic loader at a known path, or under the sanitizers"
fi

if can_perf_event; then
	"$PERFKIT" record -o "$T/r.data" -- sh -c 'echo "GT=${GLIBC_TUNABLES-unset} MARK=${PERFKIT_HEAP_THP-unset}"' \
		>"$T/rec.out" 2>/dev/null
	expect "record's program sees neither variable" grep -qx 'GT=unset MARK=unset' "$T/rec.out"
else
	skip "perf events not permitted here"
fi
# the restarted report reads and prints as before
if can_perf_event; then
	"$PERFKIT" record -o "$T/w.data" -- "$PK_BUILD/tests/workloads/calltree" 2000 >/dev/null 2>&1
	PERFKIT_NO_HEAP_THP=1 "$PERFKIT" report -i "$T/w.data" --stdio >"$T/a" 2>&1
	"$PERFKIT" report -i "$T/w.data" --stdio >"$T/b" 2>&1
	same_file "the same report with and without the restart" "$T/a" "$T/b"
else
	skip "perf events not permitted here"
fi
done_testing
