#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 1063 — report's browser sorts only the first rows when it opens or gets
# new keys ('s'), the rest when it needs them (scrolling near their end,
# End, a filter, 'P', '-') or is idle (tui.h order_rest).  Here with
# PERFKIT_TUI_READY=2 (two rows sorted first) on calltree's profile, the
# screen must be what a full sort shows: after each 's KEYS' its rows are
# `report --stdio --sort KEYS`'s rows in the same order, the row count is
# the whole table's, End reaches --stdio's last row, and 'P' writes
# --stdio's bytes.  Then 'a' on a kernel function without a readable
# kcore.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tui-lib.sh"
tui_require
perf_event_require
"$PERFKIT" record -g -F 999 -o "$T/p.data" -- "$PK_BUILD/tests/workloads/calltree" 600 >/dev/null 2>&1
expect "recorded" test -s "$T/p.data"

# rows FILE: a table's rows as "CHILDREN SELF KEYS..." (markers, graph
# lines and '#' lines dropped, blanks squeezed)
rows() {
	grep -E '^[▸▾ ] +[0-9]+\.[0-9]+%' "$1" | sed -E 's/^[▸▾ ]+//; s/ +/ /g; s/ $//'
}
stdio_rows() {   # KEYS: --stdio's rows (the call graphs' lines left out; with
		 # them perf's order of equal rows, as the browser's)
	"$PERFKIT" report -i "$T/p.data" --stdio --sort "$1" 2>/dev/null >"$T/s.txt"
	rows "$T/s.txt"
}

screen_rows() {   # the rows on the screen now
	tui_screen >"$T/screen"
	rows "$T/screen"
}
wait_rows() {   # N: until the screen shows N rows (the rest sorted when idle)
	local end=$((SECONDS + TUI_TIMEOUT))
	until [ "$(screen_rows | wc -l)" -eq "$1" ]; do
		[ "$SECONDS" -ge "$end" ] && { _tui_fail "not $1 rows on the screen"; return 1; }
		sleep 0.1
	done
}

# every row of calltree's profile on one screen: about 20 rows, more when
# a loaded machine adds kernel functions (52 seen): the screen as tall as
# the longest table needs
rmax=20
for keys in comm,dso,sym sym dso,sym pid,sym sym,tid comm,tid,dso; do
	n=$(stdio_rows "$keys" | wc -l)
	[ "$n" -gt "$rmax" ] && rmax=$n
done
tui_start 200 $((rmax + 30)) "PERFKIT_TUI_READY=2 LC_ALL=C.UTF-8 '$PERFKIT' report -i p.data"
expect "open: the table" tui_wait "Children      Self  Command"
stdio_rows comm,dso,sym >"$T/want"
n=$(wc -l <"$T/want")
expect "the profile has more rows than the 2 sorted first ($n)" test "$n" -gt 4
expect "open: the row count is the whole table's" tui_wait_re "^ *$n rows  Press"
expect "open: every row once idle" wait_rows "$n"
screen_rows >"$T/got"
same_file "open: the rows are --stdio's, in its order" "$T/want" "$T/got"

for keys in sym dso,sym pid,sym sym,tid comm,tid,dso comm,dso,sym; do
	tui_keys s C-u
	tui_keys "$keys" Enter
	stdio_rows "$keys" >"$T/want"
	n=$(wc -l <"$T/want")
	# the first key's column header, then the screen once it has n rows
	expect "s $keys: the new table" tui_wait_re "^ *$n rows  Press"
	expect "s $keys: every row once idle" wait_rows "$n"
	screen_rows >"$T/got"
	same_file "s $keys: the rows are --stdio --sort $keys's, in its order" "$T/want" "$T/got"
done

# keys typed as perf splits them (on ", "): "dso, sym" is dso,sym
tui_keys s C-u "dso, sym" Enter
stdio_rows dso,sym >"$T/want"
expect "s 'dso, sym': every row once idle" wait_rows "$(wc -l <"$T/want")"
screen_rows >"$T/got"
same_file "s 'dso, sym': the rows are --stdio --sort dso,sym's" "$T/want" "$T/got"

# a fresh table (2 rows sorted) and End with the same keys (before any
# pause): every row there, in --stdio's order
stdio_rows sym >"$T/want"
tui_keys s C-u s y m Enter End
expect "s sym, End: the new table" tui_wait_re "Self  Symbol *$"
expect "End: every row" wait_rows "$(wc -l <"$T/want")"
screen_rows >"$T/got"
same_file "End: the rows are --stdio's" "$T/want" "$T/got"

# P right after a new table: the whole of --stdio's text
tui_keys s C-u c o m m , d s o , s y m Enter P
expect "P: the file named" tui_wait "written to perf.hist.0"
"$PERFKIT" report -i "$T/p.data" --stdio --sort comm,dso,sym >"$T/stdio" 2>/dev/null
# the view's graphs are folded: compare the rows only
rows "$T/stdio" >"$T/want"
rows "$T/perf.hist.0" >"$T/got"
same_file "P: the view's rows are --stdio's" "$T/want" "$T/got"
# the layout too, byte for byte: the DSO column last, padded as perf pads
# it (at least 16 wide where a row has no symbol)
tui_keys s C-u s y m , d s o Enter P
expect "P again: the file named" tui_wait "written to perf.hist.1"
"$PERFKIT" report -i "$T/p.data" --stdio --sort sym,dso 2>/dev/null | grep -E '^ +[0-9.]+%' >"$T/want"
grep -E '^ +[0-9.]+%' "$T/perf.hist.1" >"$T/got"
same_file "P, --sort sym,dso: the rows' bytes are --stdio's, the last column padded" "$T/want" "$T/got"
expect "... which pads the DSO column" grep -q ' $' "$T/want"

# zooms and new keys: a zoom keeps the rows whose column has its value, so
# it stays after 's' only while a column of the new keys shows that value
# (a DSO's: the DSO or the symbol column; '/': the symbol column); else it
# is left, and the status line names it.  Kept, a thread zoom on rows of
# 'dso' would show each DSO's whole share under "Thread: N".
tui_keys s C-u c o m m , d s o , s y m Enter Home t
expect "zoom t: the thread" tui_wait "Thread: "
tui_keys s C-u d s o Enter
expect "s dso: the thread zoom left, and said" tui_wait "zoomed out of Thread: no column of the new keys shows it"
not_on_screen() { ! tui_screen | grep -qE -- "$1"; }
expect "s dso: no thread zoom on the screen" not_on_screen "Thread: [0-9]"
stdio_rows dso >"$T/want"
expect "s dso after the zoom: every row" wait_rows "$(wc -l <"$T/want")"
screen_rows >"$T/got"
same_file "s dso after the zoom: the rows are --stdio --sort dso's" "$T/want" "$T/got"
tui_keys Home d
expect "zoom d: the DSO" tui_wait "DSO: "
tui_keys s C-u s y m Enter
expect "s sym: the table" tui_wait_re "Self  Symbol *$"
expect "s sym: the DSO zoom stays (a symbol is of one DSO)" tui_wait "DSO: "
expect "s sym: nothing said of a zoom" not_on_screen "zoomed out"
tui_keys / m a i n Enter
expect "/ main: the symbol filter" tui_wait "Symbol: main"
tui_keys s C-u d s o Enter
expect "s dso: the symbol filter left, and said" tui_wait "zoomed out of Symbol: no column of the new keys shows it"
expect "s dso: the DSO zoom stays" tui_wait "DSO: "
tui_keys d   # zoom out of the DSO
expect "d: no zoom left" tui_wait_gone "DSO: "

tui_keys q
expect "q quits with status 0" test "$(tui_wait_exit)" = 0

# 'a' on a kernel function where the kernel's code cannot be read (here
# PERFKIT_KCORE names a missing file in place of /proc/kcore): its address
# range, the sampled addresses and the reason, not an error alone
# a kernel symbol that no other row's name contains, so that / finds it
# and not, say, __raw_callee_save_pvm_irq_enable for pvm_irq_enable
ksym=$("$PERFKIT" report -i "$T/p.data" --stdio --no-children -g none -q 2>/dev/null |
	awk '{ s[NR] = $5; k[NR] = ($4 == "[k]" && $5 !~ /^0x/) }
	     END { for (i = 1; i <= NR; i++) { if (!k[i]) continue; u = 1
	             for (j = 1; j <= NR; j++) if (j != i && index(s[j], s[i])) u = 0
	             if (u) { print s[i]; exit } } }')
if [ -n "$ksym" ]; then
	tui_start 200 50 "PERFKIT_KCORE=/nonexistent LC_ALL=C.UTF-8 '$PERFKIT' report -i p.data"
	expect "kernel: the table" tui_wait "Children      Self  Command"
	tui_keys / "$ksym" Enter
	expect "kernel: $ksym found" tui_wait "Symbol: $ksym"
	tui_keys a
	expect "kernel a: the annotation view" tui_wait "Annotation of $ksym"
	expect "kernel a: the address range" tui_wait_re "<$ksym>: [0-9a-f]{16}-[0-9a-f]{16}"
	expect "kernel a: a sampled address with its share" tui_wait_re '^ +[0-9]+\.[0-9]{2} : +[0-9a-f]+$'
	expect "kernel a: why no instructions" tui_wait "No instructions: /nonexistent does not exist"
	tui_keys q q q   # the annotation, the search, the browser
	expect "kernel: q quits" test "$(tui_wait_exit)" = 0
else
	skip "no kernel function among calltree's samples"
fi
done_testing
