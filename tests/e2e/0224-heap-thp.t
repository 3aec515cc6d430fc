#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The commands that read large profiles (report, script, collapse,
# flamegraph, diff, diff-folded, annotate) start themselves once more with
# glibc's malloc tunable glibc.malloc.hugetlb=1, so that the heap is in
# transparent huge pages (src/perfkit.c heap_thp: a compile job's default
# report, 4.4 s of CPU -> 2.9 s on a hypervisor where a 4 KiB fault costs
# about 10 us).  Checked on the process itself, waiting on a FIFO for its
# input: its environment as it started (/proc/PID/environ) and its
# arguments.  A user's own GLIBC_TUNABLES is kept and PERFKIT_NO_HEAP_THP
# turns it off; a command that runs programs (record) is not restarted and
# its program sees neither variable.
. "$(dirname "$0")/lib.sh"

thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
case $thp in
*"[always]"* | *"[madvise]"*) ;;
*) skip "transparent huge pages off here ('${thp:-no /sys/kernel/mm/transparent_hugepage}')"; done_testing; exit ;;
esac

# started ENV... -- CMD ARGS...: the environment and arguments of perfkit
# CMD ARGS (its input a FIFO) once it waits on the FIFO, in $T/env, $T/args
started() {
	local envs=() pid
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	rm -f "$T/in" "$T/env" "$T/args"
	mkfifo "$T/in"
	env "${envs[@]}" "$PERFKIT" "$@" -i "$T/in" >/dev/null 2>&1 &
	pid=$!
	# the restart done: the process waits to open the FIFO
	wait_until 10 grep -q "wait_for_partner\|fifo" "/proc/$pid/wchan" 2>/dev/null ||
		sleep 1
	tr '\0' '\n' <"/proc/$pid/environ" >"$T/env" 2>/dev/null
	tr '\0' ' ' <"/proc/$pid/cmdline" >"$T/args" 2>/dev/null
	cat "/proc/$pid/comm" >"$T/comm" 2>/dev/null
	: >"$T/in"   # a writer opens and closes it: empty input, the command ends
	wait $pid 2>/dev/null
}

started -- report --stdio
expect "report: restarted with glibc.malloc.hugetlb=1" grep -qx 'GLIBC_TUNABLES=glibc.malloc.hugetlb=1' "$T/env"
expect "report: its arguments as given" grep -q "report --stdio -i $T/in $" "$T/args"
expect "report: its name kept ($(cat "$T/comm"), not exe)" test "$(cat "$T/comm")" = "$(basename "$(readlink -f "$PERFKIT")" | cut -c1-15)"
started -- script
expect "script: restarted with glibc.malloc.hugetlb=1" grep -qx 'GLIBC_TUNABLES=glibc.malloc.hugetlb=1' "$T/env"
started GLIBC_TUNABLES=glibc.malloc.perturb=0 -- report --stdio
expect "a user's GLIBC_TUNABLES kept as it is" grep -qx 'GLIBC_TUNABLES=glibc.malloc.perturb=0' "$T/env"
expect "... and no restart" test "$(grep -c '^GLIBC_TUNABLES=\|^PERFKIT_HEAP_THP=' "$T/env")" -eq 1
started PERFKIT_NO_HEAP_THP=1 -- report --stdio
expect "PERFKIT_NO_HEAP_THP: no restart" test "$(grep -c '^GLIBC_TUNABLES=\|^PERFKIT_HEAP_THP=' "$T/env")" -eq 0
# under valgrind (its preload library): no restart, which would run natively
# (not under the sanitizers: their runtime wants to be loaded first)
if [ -z "${PK_SAN:-}" ]; then
	started LD_PRELOAD=/nonexistent/vgpreload_memcheck-amd64-linux.so -- report --stdio
	expect "under valgrind: no restart" test "$(grep -c '^GLIBC_TUNABLES=\|^PERFKIT_HEAP_THP=' "$T/env")" -eq 0
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
