#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit diff as perf diff names and orders what it compares: several
# events in the file's order (perfkit printed them in the order of their
# first samples: page-faults before cpu-clock), each named as the OLD
# file names it ("cpu-clock:ppp" for a plain perf record, where perfkit
# printed "cpu-clock"), and one argument read as NEW, against
# ./perf.data.old (perfkit read it as OLD, against ./perf.data: the signs
# of every delta reversed); equal rows in perf's order, a DSO's samples
# without symbols one row.  Checked against perf diff on the same files.
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"

if ! have perf; then skip "perf not installed"; done_testing; exit; fi
if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/calltree
hdr() { grep '^# Event'; }
rows() { grep -v '^#' | grep . | sed -E 's/ +/ /g; s/ $//'; }

perf record -q -e cpu-clock,page-faults -F 2000 -o "$T/a.data" -- "$W" 150 >/dev/null 2>&1
perf record -q -e cpu-clock,page-faults -F 2000 -o "$T/b.data" -- "$W" 250 >/dev/null 2>&1
perf record -q -F 2000 -o "$T/c.data" -- "$W" 150 >/dev/null 2>&1

"$PERFKIT" diff "$T/a.data" "$T/b.data" 2>/dev/null | hdr >"$T/got"
printf '%s\n' "# Event 'cpu-clock'" "# Event 'page-faults'" >"$T/want"
same_file "two events: in the file's order" "$T/want" "$T/got"
perf diff "$T/a.data" "$T/b.data" 2>/dev/null | hdr >"$T/perf"
same_file "... as perf diff's" "$T/perf" "$T/got"

"$PERFKIT" diff "$T/c.data" "$T/a.data" 2>/dev/null | hdr >"$T/got"
printf '%s\n' "# Event 'cpu-clock:ppp'" >"$T/want"
same_file "the event named as OLD names it (cpu-clock:ppp)" "$T/want" "$T/got"
perf diff "$T/c.data" "$T/a.data" 2>/dev/null | hdr >"$T/perf"
same_file "... as perf diff's" "$T/perf" "$T/got"

cp "$T/a.data" "$T/perf.data.old"
cp "$T/c.data" "$T/perf.data"
(cd "$T" && "$PERFKIT" diff b.data 2>/dev/null) | rows >"$T/got"
"$PERFKIT" diff "$T/perf.data.old" "$T/b.data" 2>/dev/null | rows >"$T/want"
expect "one file: NEW, against ./perf.data.old (rows there)" test -s "$T/want"
same_file "... the same table as 'diff perf.data.old FILE'" "$T/want" "$T/got"
# the rows of symbols in both files (perfkit's "new" and "gone" cells and
# its order of equal deltas are its own: README), sorted
both() { grep -E '^ ?[0-9.]+% [-+][0-9.]+% ' | sort; }
(cd "$T" && perf diff b.data 2>/dev/null) | rows | both >"$T/perf"
both <"$T/got" >"$T/got.both"
expect "... perf diff FILE's rows there" test -s "$T/perf"
same_file "... perf diff FILE's rows of symbols in both" "$T/perf" "$T/got.both"
# a file against itself, every delta +0.00%: perf diff's rows exactly,
# equal rows by baseline, then DSO name, then symbol, and the samples of a
# DSO without symbols (forkexec runs dash, stripped) one row at its lowest
# address (perfkit printed one row per address, ordered by symbol alone)
perf record -q -F 2000 -o "$T/f.data" -- "$PK_BUILD/tests/workloads/forkexec" >/dev/null 2>&1
perf diff "$T/f.data" "$T/f.data" >"$T/perf" 2>/dev/null
"$PERFKIT" diff "$T/f.data" "$T/f.data" >"$T/got" 2>/dev/null
expect "a file against itself: rows there" test "$(rows <"$T/perf" | wc -l)" -gt 3
same_file "... perf diff's text byte for byte (its rows in its order, the Symbol column's width, no blank line at the end)" \
	"$T/perf" "$T/got"
perf diff "$T/a.data" "$T/a.data" >"$T/perf" 2>/dev/null
"$PERFKIT" diff "$T/a.data" "$T/a.data" >"$T/got" 2>/dev/null
same_file "two events against themselves: perf diff's text byte for byte (a blank line between the events)" \
	"$T/perf" "$T/got"
rm "$T/perf.data.old"
(cd "$T" && "$PERFKIT" diff b.data >/dev/null 2>"$T/err")
expect "one file, no ./perf.data.old: exit 1" test $? = 1
expect "... naming perf.data.old" grep -q "perf.data.old: cannot open" "$T/err"
done_testing
