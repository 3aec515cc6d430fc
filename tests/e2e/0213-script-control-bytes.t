#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Control bytes in names: perf 6.1 `perf script` writes a comm or DSO path
# with ESC, tab, DEL or a C1 control as the bytes they are, and
# stackcollapse-perf.pl keeps them in the folded line; perfkit script and
# collapse do the same (a newline alone is written \x0a, so one record
# stays one line), while the SVG flame graph still shows \xNN escapes.
. "$(dirname "$0")/lib.sh"

if ! have perf; then skip "perf (the oracle) is not installed"; done_testing; exit; fi
if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi

dir="$T/d"$'\033'"[1mx"
mkdir -p "$dir"
cp "$PK_BUILD/tests/workloads/ctlcomm" "$dir/ctl"
name=$'c\033[31mt\tl\177\xc2\x9b'
perf record -q -e cpu-clock -g -o "$T/ctl.data" -- "$dir/ctl" "$name" 100 >/dev/null 2>&1

perf script -i "$T/ctl.data" >"$T/perf.txt" 2>/dev/null
"$PERFKIT" script -i "$T/ctl.data" >"$T/pk.txt" 2>"$T/err"
expect 'perf script shows the comm with its raw bytes' grep -aqF "$name " "$T/perf.txt"
if cmp -s "$T/perf.txt" "$T/pk.txt"; then
	ok 'script: the same bytes as perf script (raw ESC, tab, DEL, C1 in comm and DSO path)'
else
	not_ok 'script: the same bytes as perf script'
	diff -a "$T/perf.txt" "$T/pk.txt" | head -6 | cat -A | while IFS= read -r l; do diag "$l"; done
fi
expect 'script: the workload frame shown' grep -aqF "spin_ctl+0x" "$T/pk.txt"
expect 'script: the DSO path with its raw ESC' grep -aqF "($dir/ctl)" "$T/pk.txt"
expect_fail 'script: no \x1b escape in the text' grep -aqF '\x1b' "$T/pk.txt"

# collapse of the file = collapse of perf script's text (the Perl rules keep the bytes);
# a call chain cut at perf's 127 frames (a garbage frame-pointer chain at
# start-up, now and then) gets perfkit's [truncated] frame, which perf
# script's text cannot carry: taken out before the comparison
"$PERFKIT" collapse "$T/ctl.data" 2>/dev/null | sed 's/;\[truncated\];/;/' >"$T/pk.folded"
"$PERFKIT" collapse "$T/perf.txt" >"$T/txt.folded" 2>/dev/null
same_file 'collapse perf.data = collapse of perf script text' "$T/txt.folded" "$T/pk.folded"
expect 'collapse: folded line starts with the raw comm' grep -aq "^$name;.*spin_ctl [0-9]" "$T/pk.folded"

# renderers still escape
"$PERFKIT" flamegraph "$T/ctl.data" >"$T/ctl.svg" 2>/dev/null
expect_fail 'SVG: no raw ESC' grep -aq $'\033' "$T/ctl.svg"
expect 'SVG: the comm shown with \x1b' grep -aqF 'c\x1b[31mt' "$T/ctl.svg"
"$PERFKIT" report -i "$T/ctl.data" --stdio >"$T/rep.txt" 2>/dev/null
expect_fail 'report: no raw ESC' grep -aq $'\033' "$T/rep.txt"
"$PERFKIT" report -i "$T/ctl.data" --html -o "$T/ctl.html" >/dev/null 2>&1
expect 'HTML written' test -s "$T/ctl.html"
expect_fail 'HTML: no raw ESC' grep -aq $'\033' "$T/ctl.html"
"$PERFKIT" report -i "$T/ctl.data" --export=speedscope -o "$T/ctl.json" >/dev/null 2>&1
expect 'speedscope JSON: valid, no raw ESC' python3 -c '
import json, sys
json.load(open(sys.argv[1]))
assert b"\x1b" not in open(sys.argv[1], "rb").read(), "raw ESC in the JSON"' "$T/ctl.json"

# a newline: perf splits the record; perfkit writes \x0a
perf record -q -e cpu-clock -g -o "$T/nl.data" -- "$dir/ctl" $'n\nl' 40 >/dev/null 2>&1
"$PERFKIT" script -i "$T/nl.data" >"$T/nl.txt" 2>/dev/null
expect 'script: a newline in the comm written \x0a' grep -aqF 'n\x0al ' "$T/nl.txt"
"$PERFKIT" collapse "$T/nl.data" >"$T/nl.folded" 2>/dev/null
expect 'collapse: a newline in the comm written \x0a' grep -aqF 'n\x0al;' "$T/nl.folded"
done_testing
