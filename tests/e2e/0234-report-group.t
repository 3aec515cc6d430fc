#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 0234 — report's group view, as perf report's: a file whose
# HEADER_GROUP_DESC has an event group (record -e '{a,b}') shows the
# group's events in one table, a column per event for each number
# (Children, Self or Overhead, -n's Samples, --show-total-period's
# Period), titled "of events 'anon group { a, b }'"; --no-group shows each
# event's table ("of events" for the leader's, as perf titles it);
# --group on a file of events recorded apart makes them one group
# ("of events 'a, b'").  Against perf report where perf is there: the
# files of both record commands, with and without call graphs, with -F's
# columns and order too, -t's layout and --group-sort-idx.
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"
perf_event_require
W="$PK_BUILD/tests/workloads/calltree"

"$PERFKIT" record -e '{cpu-clock,task-clock}' -o "$T/g.data" -- "$W" 300 >/dev/null 2>&1
"$PERFKIT" report -i "$T/g.data" --stdio >"$T/g.out" 2>"$T/g.err"
expect "group: the title names the group" grep -qF "of events 'anon group { cpu-clock, task-clock }'" "$T/g.out"
expect "group: one table (one title)" test "$(grep -c '^# Samples:' "$T/g.out")" = 1
expect "group: the header spans both events" grep -qE '^#         Overhead  Command' "$T/g.out"
expect "group: a row of calltree's c with two shares" grep -qE '^ +[0-9.]+% +[0-9.]+%  calltree +calltree +\[\.\] c$' "$T/g.out"
"$PERFKIT" report -i "$T/g.data" --stdio -n --show-total-period --sort sym >"$T/gn.out" 2>/dev/null
expect "group -n --show-total-period: two Samples and two Period columns" \
	grep -qE '^ +[0-9.]+% +[0-9.]+% +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+  \[\.\] c$' "$T/gn.out"
expect "group -n: the Samples header 24 wide" grep -qE '^#         Overhead                   Samples                    Period  Symbol' "$T/gn.out"
"$PERFKIT" report -i "$T/g.data" --stdio --no-group >"$T/ng.out" 2>/dev/null
expect "--no-group: a table per event" test "$(grep -c '^# Samples:' "$T/ng.out")" = 2
expect "--no-group: the leader's title says events" grep -qF "of events 'cpu-clock'" "$T/ng.out"
expect "--no-group: the member's says event" grep -qF "of event 'task-clock'" "$T/ng.out"

"$PERFKIT" record -e cpu-clock,task-clock -o "$T/two.data" -- "$W" 300 >/dev/null 2>&1
"$PERFKIT" report -i "$T/two.data" --stdio >"$T/two.out" 2>/dev/null
expect "events apart: a table each" test "$(grep -c '^# Samples:' "$T/two.out")" = 2
"$PERFKIT" report -i "$T/two.data" --stdio --group >"$T/twog.out" 2>/dev/null
expect "events apart, --group: one table" test "$(grep -c '^# Samples:' "$T/twog.out")" = 1
expect "events apart, --group: titled with both, no group name" grep -qF "of events 'cpu-clock, task-clock'" "$T/twog.out"

# a group of three in a file of four events: the fourth its own table
"$PERFKIT" record -e '{cpu-clock,task-clock,cpu-clock}',task-clock -o "$T/g3.data" -- "$W" 200 >/dev/null 2>&1
"$PERFKIT" report -i "$T/g3.data" --stdio >"$T/g3.out" 2>/dev/null
expect "three in a group and one apart: two tables" test "$(grep -c '^# Samples:' "$T/g3.out")" = 2
expect "... the group's rows have three shares" grep -qE '^ +[0-9.]+% +[0-9.]+% +[0-9.]+%  calltree' "$T/g3.out"

if ! have perf; then
	skip "perf is not installed: no comparison with perf report"
	done_testing
	exit
fi
# against perf report: a chain the kernel cut short (perfkit's
# "[truncated]" row) and PLT stubs (perf's _init) are the README's known
# differences, left out of both
cmp_perf() {
	local d=$1; shift
	perf report -i "$d" --stdio "$@" 2>/dev/null | grep -v '^# (Tip:' | grep -v '\[truncated\]' | no_plt_rows | trim_tail >"$T/perf.oracle"
	"$PERFKIT" report -i "$d" --stdio "$@" 2>/dev/null | grep -v '\[truncated\]' | no_plt_rows | trim_tail >"$T/perfkit.oracle"
	same_file "report $* (${d##*/}): perf report's output" "$T/perf.oracle" "$T/perfkit.oracle"
}
# ... with -F: rows of addresses that only chains pass through (0.00 %)
# left out, their order among themselves perf's trees' (no_zero_addr_rows)
cmp_perf_f() {
	local d=$1; shift
	perf report -i "$d" --stdio "$@" 2>/dev/null | grep -v '^# (Tip:' | grep -v '\[truncated\]' | no_plt_rows | no_zero_addr_rows | trim_tail >"$T/perf.oracle"
	"$PERFKIT" report -i "$d" --stdio "$@" 2>/dev/null | grep -v '\[truncated\]' | no_plt_rows | no_zero_addr_rows | trim_tail >"$T/perfkit.oracle"
	same_file "report $* (${d##*/}): perf report's output" "$T/perf.oracle" "$T/perfkit.oracle"
}
perf record -q -g -e '{cpu-clock,task-clock}' -o "$T/pg.data" -- "$W" 300 >/dev/null 2>&1
"$PERFKIT" record -g -e '{cpu-clock,task-clock}:u' -o "$T/kg.data" -- "$W" 300 >/dev/null 2>&1
for d in g.data pg.data kg.data; do
	cmp_perf "$T/$d"
	cmp_perf "$T/$d" -n --sort sym
	cmp_perf "$T/$d" --no-group
	cmp_perf "$T/$d" --show-total-period --sort dso,sym
	cmp_perf_f "$T/$d" -F overhead,sym
	cmp_perf_f "$T/$d" -F sym,overhead,sample
	cmp_perf_f "$T/$d" -F overhead_children,overhead,sym
	cmp_perf_f "$T/$d" -F sample,dso -s sym
done
for d in pg.data kg.data; do
	cmp_perf "$T/$d" --no-children
	cmp_perf "$T/$d" -g none
	cmp_perf "$T/$d" --percent-limit 5
	cmp_perf "$T/$d" -g caller --sort comm,sym
done
cmp_perf "$T/two.data" --group
cmp_perf "$T/two.data" --group -n --sort dso
cmp_perf "$T/g3.data"
cmp_perf_f "$T/g3.data" -F overhead,period,comm
# --group-sort-idx N: event N's numbers first, then the other members',
# then the keys (a file of three events whose shares differ)
perf record -q -e cpu-clock -e task-clock -e page-faults -c 1 -o "$T/pf.data" -- "$W" 100 >/dev/null 2>&1
for i in 0 1 2 3; do
	cmp_perf "$T/pf.data" --group --group-sort-idx $i --sort sym
	cmp_perf "$T/pf.data" --group --group-sort-idx $i -n
done
cmp_perf_f "$T/pf.data" --group --group-sort-idx 2 -F overhead,sample,sym
cmp_perf "$T/pg.data" --group-sort-idx 1
# groups of three and four with page faults: rows only a member has
# (page faults at addresses the leader has as [k] and the fault as [.],
# one row in perf), several members' such rows ordered together, and
# --percent-limit hiding them (a member's hidden row once took another
# row's place, or crashed with no row shown)
perf record -q -g -e '{cpu-clock,task-clock,page-faults}' -o "$T/g3p.data" -- "$W" 300 >/dev/null 2>&1
perf record -q -g -e '{cpu-clock,task-clock,page-faults,context-switches}' -o "$T/g4p.data" -- "$W" 300 >/dev/null 2>&1
for d in g3p.data g4p.data; do
	cmp_perf "$T/$d"
	cmp_perf "$T/$d" --no-children -g none -n --percent-limit 1
	cmp_perf "$T/$d" --percent-limit 100
	cmp_perf "$T/$d" --sort dso,sym --percent-limit 2
done
"$PERFKIT" report -i "$T/g3.data" --stdio --no-children --percent-limit 100 >"$T/lim.out" 2>&1
expect "a group, every row under --percent-limit: the head, no row, status 0" \
	sh -c "grep -q '^# Samples: ' '$T/lim.out' && ! grep -q '%  calltree' '$T/lim.out'"
"$PERFKIT" report -i "$T/two.data" --stdio --group-sort-idx 1 >/dev/null 2>"$T/idx.err"
expect "--group-sort-idx 1 on events recorded apart, without --group: refused with status 2 (as perf)" test $? = 2
expect "... saying why" grep -q 'has no event groups' "$T/idx.err"
# page faults of a shell loop: a symbol the leader has only in chains
# and the member as leaves is one row (its rows had different addresses:
# one row per event); --group-sort-idx -1 is no index, as perf's
if have dash; then
	perf record -q -g -e '{cpu-clock,page-faults}' -o "$T/gpf.data" -- dash -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done' >/dev/null 2>&1
	cmp_perf "$T/gpf.data" --no-children
	cmp_perf "$T/gpf.data" --sort dso,sym --no-children -g none
	cmp_perf "$T/gpf.data" --no-children --group-sort-idx -1
fi
# -t SEP: each number's values one after the other, the column padded
for d in g.data pg.data; do
	cmp_perf "$T/$d" -t ,
	cmp_perf "$T/$d" -t '|' -n --sort sym
	cmp_perf_f "$T/$d" -t ' ' -F sym,overhead
done
cmp_perf "$T/g3.data" -t , --show-total-period
done_testing
