#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perf report --show-cpu-utilization (--showcpuutilization): the sys and
# usr columns after Self or Overhead, Self's samples taken in kernel and
# in user mode (a sample's mode: its leaf frame's level), "%7.2f%%" of the
# total as Self.  perf sorts by them after the keys (its output fields
# appended to the sort), which orders rows the keys find equal, such as
# two unknown addresses.  -F overhead_sys,overhead_us name the columns.
# On mkchainlvl.py's file (kernel and user leaves, no symbols), and on a
# live recording of a program and a syscall loop: each against perf
# report when perf is here, and sys + usr = Self on every row.
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"

python3 "$TOP/tests/e2e/mkchainlvl.py" "$T/lvl.data"
rows() { grep -v '^#' | grep '%'; }
"$PERFKIT" report -i "$T/lvl.data" --stdio --show-cpu-utilization -g none >"$T/lvl" 2>/dev/null
expect "the header: Children, Self, sys, usr" grep -qE '^# Children +Self +sys +usr +Command' "$T/lvl"
expect "0xb (a kernel leaf): its Self all sys" grep -qE '^ +20\.00% +20\.00% +20\.00% +0\.00% +lvl .*\[k\] 0x000000000000000b$' "$T/lvl"
expect "0xc (a user leaf): its Self all usr" grep -qE '^ +20\.00% +20\.00% +0\.00% +20\.00% +lvl .*\[\.\] 0x000000000000000c$' "$T/lvl"
# the keys find 0xb..0xe equal (no symbol): sys first, then usr
expect "0xc after 0xb, 0xd and 0xe (sys before usr)" test "$(rows <"$T/lvl" | grep -n '0x000000000000000[bcde]$' | sed -n 4p | grep -c '0x000000000000000c')" = 1
"$PERFKIT" report -i "$T/lvl.data" --stdio --showcpuutilization --sort comm -g none >"$T/comm" 2>/dev/null
expect "--showcpuutilization --sort comm: lvl 60 % sys, 20 % usr" grep -qE '^ +80\.00% +80\.00% +60\.00% +20\.00% +lvl *$' "$T/comm"
"$PERFKIT" report -i "$T/lvl.data" --stdio --no-children -g none -F overhead,overhead_sys,overhead_us,comm >"$T/f" 2>/dev/null
expect "-F overhead,overhead_sys,overhead_us,comm: the columns" grep -qE '^# Overhead +sys +usr +Command' "$T/f"
expect "... lvl2 all usr" grep -qE '^ +20\.00% +0\.00% +20\.00% +lvl2 *$' "$T/f"
"$PERFKIT" report -i "$T/lvl.data" --stdio --show-cpu-utilization -g none -t ';' --sort comm >"$T/sep" 2>/dev/null
expect "-t ';': perf's blank after a sys or usr percentage" grep -qF ' 60.00% ; 20.00% ;lvl' "$T/sep"

sums() {   # every row: sys + usr = Self (to 0.01 + rounding)
	rows | awk '{ s = $2 + 0; y = $3 + 0; u = $4 + 0; d = s - y - u; if (d > 0.011 || d < -0.011) bad++ } END { exit bad > 0 }'
}
expect "lvl.data: sys + usr = Self on every row" sums <"$T/lvl"

data=("$T/lvl.data")
if can_perf_event; then
	"$PERFKIT" record -g -F 2000 -o "$T/live.data" -- sh -c "'$PK_BUILD/tests/workloads/calltree' 100; dd if=/dev/zero of=/dev/null bs=1 count=200000 2>/dev/null" >/dev/null 2>&1
	"$PERFKIT" report -i "$T/live.data" --stdio --show-cpu-utilization >"$T/live" 2>/dev/null
	expect "live: sys + usr = Self on every row" sums <"$T/live"
	data+=("$T/live.data")
	# an event group (perf's group view): sys and usr per event
	"$PERFKIT" record -e '{cpu-clock,task-clock}' -o "$T/grp.data" -- "$PK_BUILD/tests/workloads/calltree" 100 >/dev/null 2>&1
	"$PERFKIT" report -i "$T/grp.data" --stdio --show-cpu-utilization >"$T/grp" 2>/dev/null
	expect "group: two sys and two usr columns" grep -qE '^# +Overhead +sys +usr +Command' "$T/grp"
	expect "group: calltree's c all usr, for both events" grep -qE '^ +([0-9.]+%) +([0-9.]+%) +0\.00% +0\.00% +\1 +\2 +calltree +calltree +\[\.\] c$' "$T/grp"
else
	skip "perf events not permitted here: no live recording"
fi
if have perf; then
	for o in "" "-g none" "--sort comm" "--sort pid,sym -g callee" "--no-children --sort dso" "-g none -t ;"; do
		same_as_perf "$T/lvl.data" --show-cpu-utilization $o
	done
	# -F: rows its fields find equal (two unknown symbols: perf's
	# sort__sym_sort) in perf's insertion order, the keys' (by address)
	for o in "overhead,sym" "overhead,sym,comm" "overhead,overhead_sys,sym"; do
		same_as_perf "$T/lvl.data" -F "$o"
	done
	# a live file's rows as a set: the order of rows of equal shares is
	# the shape of perf's tree, which a row only perfkit has changes
	# (its [truncated]: the README's known difference)
	[ -s "$T/grp.data" ] && same_as_perf "$T/grp.data" --show-cpu-utilization
	for d in "${data[@]:1}"; do
		for o in "" "-g none" "--sort comm" "--no-children --sort dso"; do
			perf report -i "$d" --stdio --show-cpu-utilization -g none $o 2>/dev/null | rows | grep -v '\[truncated\]' | sort >"$T/perf.rows"
			"$PERFKIT" report -i "$d" --stdio --show-cpu-utilization -g none $o 2>/dev/null | rows | grep -v '\[truncated\]' | sort >"$T/pk.rows"
			same_file "--show-cpu-utilization -g none $o (${d##*/}): perf report's rows" "$T/perf.rows" "$T/pk.rows"
		done
	done
else
	skip "perf (the oracle) is not installed"
fi
done_testing
