#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perf report --tasks: the threads of the file instead of the table, each
# under the thread that forked it ("# pid tid ppid comm", a level a space
# before the name), in perf 6.1's order (its thread table's: 256 buckets
# by tid; a parent's children as they were first met), perf's idle
# "swapper" first.  mkchainlvl.py's file (no FORK: every thread a root),
# and a live recording of a shell, its child shell and forkexec (a
# process, its thread and its forked child), each against perf report;
# --mmaps, the same with each thread's maps.
. "$(dirname "$0")/lib.sh"

python3 "$TOP/tests/e2e/mkchainlvl.py" "$T/lvl.data"
"$PERFKIT" report -i "$T/lvl.data" --tasks >"$T/lvl" 2>"$T/lvl.err"
expect "lvl.data: exit 0, nothing on stderr" test $? = 0 -a ! -s "$T/lvl.err"
expect "the header" test "$(head -1 "$T/lvl")" = "#      pid      tid     ppid  comm"
expect "perf's idle thread first" test "$(sed -n 2p "$T/lvl")" = "         0        0       -1 |swapper"
expect "lvl: no FORK, a root" grep -qx '      7373     7373       -1 |lvl' "$T/lvl"
expect_fail "no table" grep -q "%" "$T/lvl"
if have perf; then
	perf report -i "$T/lvl.data" --tasks 2>/dev/null >"$T/lvl.perf"
	same_file "lvl.data: perf report --tasks's output" "$T/lvl.perf" "$T/lvl"
fi
if can_perf_event; then
	"$PERFKIT" record -o "$T/t.data" -- sh -c "sh -c 'true'; '$PK_BUILD/tests/workloads/forkexec' 30" >/dev/null 2>&1
	"$PERFKIT" report -i "$T/t.data" --tasks >"$T/t" 2>/dev/null
	expect "live: the child shell one level under the shell" grep -qE '^ +[0-9]+ +[0-9]+ +[0-9]+ \| sh$' "$T/t"
	expect "... forkexec one level under the shell" grep -qE '^ +[0-9]+ +[0-9]+ +[0-9]+ \| forkexec$' "$T/t"
	expect "... its thread under it (same pid, another tid)" awk '$NF == "forkexec" && $1 != $2 && /\|  forkexec$/ { ok = 1 } END { exit !ok }' "$T/t"
	# --mmaps: each thread's maps under it ("START-END PROT OFFSET INODE
	# DSO", 32 columns and its level in), an exec's old image's kept
	# where the new one does not cover them, as perf's
	"$PERFKIT" report -i "$T/t.data" --mmaps >"$T/m" 2>/dev/null
	expect "--mmaps: forkexec's own code under it (33 columns in: level 1)" \
		grep -qE "^ {33}[0-9a-f]+-[0-9a-f]+ r-xp [0-9a-f]{8} [0-9]+ .*/forkexec\$" "$T/m"
	expect "--mmaps: the tasks' lines as --tasks's" cmp -s "$T/t" <(grep -vE '^ {32,}[0-9a-f]+-[0-9a-f]+ ' "$T/m")
	if have perf; then
		perf report -i "$T/t.data" --tasks 2>/dev/null >"$T/t.perf"
		same_file "live: perf report --tasks's output" "$T/t.perf" "$T/t"
		perf report -i "$T/t.data" --mmaps 2>/dev/null >"$T/m.perf"
		same_file "live: perf report --mmaps's output" "$T/m.perf" "$T/m"
	else
		skip "perf (the oracle) is not installed"
	fi
else
	skip "perf events not permitted here: no live recording"
fi
done_testing
