#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 1067 — the browser's levels ("[k]", "[.]") of callers of no mapping, on
# the perf.data of 0225 (mkchainlvl.py: such callers take the level of the
# frame before them in the chain's order, caller order with Children).
# Opened with --no-children, '+' shows Children in caller order: its rows
# of no mapping must show the levels --stdio shows with Children (they
# came at their own contexts' levels, 0x100 and 0x200 "[.]" where perf
# shows "[k]"), and '-' the Self view of --stdio --no-children again.
# With -g callee the levels are those of callee order; opened with
# Children, '-' gives the Self view's.  Each compared through 'P' (every
# graph unfolded: the bytes of --stdio).  Then the columns that zooms and
# the command's filters of one name leave out, as --stdio leaves them, and
# --percent-limit applied to the view shown.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
tui_require
if ! have python3; then skip "python3 not installed"; done_testing; exit; fi
python3 "$TOP/tests/e2e/mkchainlvl.py" "$T/lvl.data"
R="LC_ALL=C.UTF-8 '$PERFKIT' report -i lvl.data"
n=0

# view KEY HEAD NAME FILE: press KEY, wait for the view's head, unfold
# every graph, write the view (perf.hist.$n) and compare it with FILE
view() {
	tui_keys "$1"
	expect "$3: the view" tui_wait "$2"
	tui_keys E P
	expect "$3: P wrote perf.hist.$n" tui_wait "written to perf.hist.$n"
	same_file "$3: the text of --stdio$5" "$4" "$T/perf.hist.$n"
	n=$((n + 1))
}

for o in "" "-g none" "-g callee"; do
	s=${o:+ $o}   # the options in the tests' names
	"$PERFKIT" report -i "$T/lvl.data" --stdio $o >"$T/ch" 2>/dev/null
	"$PERFKIT" report -i "$T/lvl.data" --stdio --no-children $o >"$T/nc" 2>/dev/null
	expect "--stdio$s: 0x200 at [k] with Children" grep -q '\[k\] 0x0000000000000200$' "$T/ch"
	tui_start 100 40 "$R --no-children $o"
	expect "--no-children$s: the Self view" tui_wait "  Overhead  Command"
	view + "Children      Self" "--no-children$s, +" "$T/ch" "$s"
	view - "  Overhead  Command" "--no-children$s, +, -" "$T/nc" " --no-children$s"
	tui_keys q
	expect "--no-children$s: q quits" test "$(tui_wait_exit)" = 0

	tui_start 100 40 "$R $o"
	expect "opened$s: the Children view" tui_wait "Children      Self"
	view - "  Overhead  Command" "opened$s, -" "$T/nc" " --no-children$s"
	view + "Children      Self" "opened$s, -, +" "$T/ch" "$s"
	tui_keys q
	expect "opened$s: q quits" test "$(tui_wait_exit)" = 0
done

# the columns a filter of one name leaves out (perf's sort__setup_elide):
# --comms lvl at the start, then 'c' or 'd' on a row; 'P' writes what
# --stdio prints with those filters, a "# comm: lvl" line for each column
# left out (with every column left out, all stay); a thread zoom ('t')
# leaves the text as --tid does, columns and all
pv() {   # pv NAME --stdio's options...: the view now against --stdio
	local name=$1
	shift
	"$PERFKIT" report -i "$T/lvl.data" --stdio "$@" >"$T/want" 2>/dev/null
	tui_keys E P
	expect "$name: P wrote perf.hist.$n" tui_wait "written to perf.hist.$n"
	same_file "$name: the text of --stdio $*" "$T/want" "$T/perf.hist.$n"
	n=$((n + 1))
}
tui_start 100 40 "$R"
expect "zooms: the table" tui_wait "Children      Self"
tui_select 'lvl +\[unknown\] +\[k\] 0x0+200$'
tui_keys c
expect "c: the command zoomed" tui_wait "Command: lvl |"
pv "c" --comms lvl
tui_keys d
expect "c, d: the DSO zoomed" tui_wait "DSO: [unknown] |"
pv "c, d" --comms lvl --dsos '[unknown]'
tui_keys c
expect "c, d, c: the command zoomed out" tui_wait_gone "Command: lvl |"
pv "c, d, c" --dsos '[unknown]'
tui_keys d t
expect "t: the thread zoomed" tui_wait "Thread: 7373 |"
pv "t" --tid 7373
tui_keys q
expect "t, q: the thread zoomed out" tui_wait_gone "Thread: 7373 |"
tui_keys q
expect "t, q, q: quits" test "$(tui_wait_exit)" = 0
# --comms without a comm key keeps the rows whose first thread is listed
# (perf's entries): lvl2 made 0x100's row, so '--comms lvl -s sym' has
# none; 's' from or to a comm key reads the samples again to place it
tui_start 100 40 "$R --comms lvl"
expect "--comms lvl: the table" tui_wait "Children      Self"
tui_keys s C-u s y m Enter
expect "--comms lvl, s sym: the keys" tui_wait_re "Self  Symbol *$"
pv "--comms lvl, s sym" --comms lvl --sort sym
tui_keys s C-u c o m m , s y m Enter
expect "--comms lvl, s sym, s comm,sym: the keys" tui_wait_re "Self  Symbol *$"
pv "--comms lvl, s sym, s comm,sym" --comms lvl --sort comm,sym
tui_keys q
tui_wait_exit >/dev/null
for o in "--comms lvl" "--comms lvl --dsos [unknown] -s comm,dso" "--comms lvl -s pid,comm,sym"; do
	tui_start 100 40 "$R $o"
	expect "$o: the table" tui_wait "Children      Self"
	pv "opened with $o" $o
	tui_keys q
	tui_wait_exit >/dev/null
done

# a table of more rows than the browser sorts whole (PERFKIT_TUI_WHOLE
# rows; 100 000 by default) has its first screen sorted alone, its rows
# of equal Children from two threads by a plain sort, not in perf's tree
# order: -g callee's differ from --stdio in order only.  Decided on the
# table's own rows, opened and after 's' (it once read the count of the
# table before, none at the opening, and sorted every table whole)
"$PERFKIT" report -i "$T/lvl.data" --stdio -g callee >"$T/ch" 2>/dev/null
sort "$T/ch" >"$T/ch.sorted"
part() {   # part NAME: the view (every graph unfolded) in part sorted
	tui_keys E P
	expect "$1: P wrote perf.hist.$n" tui_wait "written to perf.hist.$n"
	expect_fail "$1: not --stdio's order of equal rows" cmp -s "$T/ch" "$T/perf.hist.$n"
	sort "$T/perf.hist.$n" >"$T/got.sorted"
	same_file "$1: --stdio's lines" "$T/ch.sorted" "$T/got.sorted"
	n=$((n + 1))
}
tui_start 100 40 "PERFKIT_TUI_WHOLE=2 $R -g callee"
expect "PERFKIT_TUI_WHOLE=2: the table" tui_wait "Children      Self"
part "PERFKIT_TUI_WHOLE=2, opened"
tui_keys C s C-u s y m Enter
expect "PERFKIT_TUI_WHOLE=2, s sym: the keys" tui_wait_re "Self  Symbol *$"
tui_keys s C-u c o m m , d s o , s y m Enter
expect "PERFKIT_TUI_WHOLE=2, s comm,dso,sym: the keys" tui_wait_re "Self  Command +Shared Object +Symbol *$"
part "PERFKIT_TUI_WHOLE=2, s sym, s comm,dso,sym"
tui_keys q
expect "PERFKIT_TUI_WHOLE=2: q quits" test "$(tui_wait_exit)" = 0

# --percent-limit in the view shown (mklimit.py: 0x200 has Children 90 %,
# Self 10 %; a-long-command1's row 10 %): '-' leaves out 0x200 (under 20
# in Self), '+' shows it again; 'P' widens Command for the row left out,
# as --stdio (perf's widths are of every row)
python3 "$TOP/tests/e2e/mklimit.py" "$T/lim.data"
lim() {   # lim NAME --stdio's options...
	local name=$1
	shift
	"$PERFKIT" report -i "$T/lim.data" --stdio --percent-limit 20 "$@" >"$T/want" 2>/dev/null
	tui_keys E P
	expect "$name: P wrote perf.hist.$n" tui_wait "written to perf.hist.$n"
	same_file "$name: the text of --stdio --percent-limit 20${*:+ $*}" "$T/want" "$T/perf.hist.$n"
	n=$((n + 1))
}
for o in "" --no-children; do
	s=${o:+ $o}
	tui_start 100 40 "LC_ALL=C.UTF-8 '$PERFKIT' report -i lim.data --percent-limit 20 $o"
	expect "--percent-limit 20$s: the table" tui_wait "Press '?'"
	lim "--percent-limit 20$s" $o
	if [ -z "$o" ]; then
		tui_keys -
		expect "--percent-limit 20, -: 0x200 left out" tui_wait_gone "0x0000000000000200"
		lim "--percent-limit 20, -" --no-children
		tui_keys +
	else
		tui_keys +
		expect "--percent-limit 20 --no-children, +: 0x200 shown" tui_wait "0x0000000000000200"
		lim "--percent-limit 20 --no-children, +"
		tui_keys -
	fi
	expect "--percent-limit 20$s, twice: the view as it opened" tui_wait "Press '?'"
	lim "--percent-limit 20$s, twice" $o
	tui_keys q
	tui_wait_exit >/dev/null
done
tui_start 100 40 "LC_ALL=C.UTF-8 '$PERFKIT' report -i lim.data --percent-limit 85"
expect "--percent-limit 85: one row, said so" tui_wait_re "^ *1 row  Press '\?'"
tui_keys -
expect "--percent-limit 85, -: none" tui_wait_re "^ *0 rows  Press '\?'"
tui_keys q
tui_wait_exit >/dev/null
done_testing
