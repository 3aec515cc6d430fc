#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 0226 — the Command column as perf sizes it: by the length of each row's
# thread's last comm (hists__calc_col_len, thread__comm_len), so that a
# row of a comm the thread had before a rename (prctl PR_SET_NAME, or an
# exec: perf's "perf-exec" rows) prints cut to that width ("%-*.*s"), the
# column no wider; in --stdio, with --sort comm, and in the browser's 'P'.
. "$(dirname "$0")/lib.sh"
perf_event_require
# a long first name (15 characters, comm's most), then "ab"
cp "$PK_BUILD/tests/workloads/ctlcomm" "$T/ctlcommlongname"
"$PERFKIT" record -F 4999 -o "$T/c.data" -- "$T/ctlcommlongname" ab 150 150 >/dev/null 2>&1
"$PERFKIT" report -i "$T/c.data" --stdio --no-children 2>/dev/null >"$T/r"
expect "the profile has samples before the rename" grep -q '^ *[0-9.]*%  ctlcomm ' "$T/r"
expect "... and after it" grep -q '^ *[0-9.]*%  ab  ' "$T/r"
expect "the Command column is as wide as its header (the last comm, ab, is shorter)" \
	grep -q '^# Overhead  Command  Shared Object' "$T/r"
expect "the first comm is cut to that width, as perf's %-*.*s" sh -c "! grep -q '%  ctlcommlongname' '$T/r'"
"$PERFKIT" report -i "$T/c.data" --stdio --sort comm -g none 2>/dev/null >"$T/rc"
expect "--sort comm: the two comms' rows, the first cut" \
	sh -c "grep -q '%  ctlcomm\$' '$T/rc' && grep -q '%  ab *\$' '$T/rc'"
# with call graphs and no thread key the model's rows are per comm, not
# per thread: the width still comes from a thread of the row's comm (a
# 15-character name printed whole, not cut to the 7 of thread 0's
# "swapper", whose idle samples a system-wide recording has)
cp "$PK_BUILD/tests/workloads/burn2to1" "$T/burnlongname15c"
"$PERFKIT" record -a -g -F 999 -o "$T/g.data" -- sh -c "'$T/burnlongname15c' 100; sleep 0.3" >/dev/null 2>&1
"$PERFKIT" report -i "$T/g.data" --stdio --no-children 2>/dev/null >"$T/rg"
# (other processes recorded beside it may have longer, escaped names: the
# column at least 15 wide)
expect "--no-children with call graphs: the long comm whole, the column as wide" \
	sh -c "grep -Eq '^# Overhead  Command {8,}' '$T/rg' && grep -q '%  burnlongname15c ' '$T/rg'"
if have perf; then
	same_as_perf "$T/c.data" --no-children
	same_as_perf "$T/c.data"
	same_as_perf "$T/c.data" --sort comm -g none
	same_as_perf "$T/c.data" --sort pid,comm -g none
else
	skip "perf is not installed"
fi
if have tmux; then
	. "$(dirname "$0")/tui-lib.sh"
	tui_require
	"$PERFKIT" report -i "$T/c.data" --stdio 2>/dev/null >"$T/stdio"
	tui_start 120 30 "LC_ALL=C.UTF-8 '$PERFKIT' report -i c.data"
	expect "browser: the first comm cut on the screen" tui_wait_re '%  ctlcomm  +ctlcommlongname'
	tui_keys E P
	expect "browser: P written" tui_wait "written to perf.hist.0"
	same_file "browser: P is report --stdio's text" "$T/stdio" "$T/perf.hist.0"
	tui_keys q q q
	tui_wait_exit >/dev/null
else
	skip "tmux is not installed (scripts/install-deps installs it)"
fi
done_testing
