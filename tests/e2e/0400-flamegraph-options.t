#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit flamegraph: inputs (files, stdin, several files, perf.data),
# -o, --cp, errors and exit statuses.
. "$(dirname "$0")/lib.sh"

FG=$SHARED/tools/fgframes
frames() { python3 "$FG" "$@"; }

printf 'main;a;b 5\nmain;a;c 3\nmain;d 2\n' >"$T/one.txt"
printf 'main;a;b 1\nother;x 4.5\n' >"$T/two.txt"

"$PERFKIT" flamegraph --hash "$T/one.txt" >"$T/file.svg"
expect 'exit 0 on a folded file' test $? -eq 0
"$PERFKIT" flamegraph --hash <"$T/one.txt" >"$T/stdin.svg"
same_file 'stdin gives the same SVG as a file' "$T/file.svg" "$T/stdin.svg"
cat "$T/one.txt" | "$PERFKIT" flamegraph --hash >"$T/pipe.svg"
same_file 'a pipe gives the same SVG' "$T/file.svg" "$T/pipe.svg"

"$PERFKIT" flamegraph "$T/one.txt" --hash >"$T/after.svg"
same_file 'options may follow file names (as with flamegraph.pl)' "$T/file.svg" "$T/after.svg"

"$PERFKIT" flamegraph --hash "$T/one.txt" "$T/two.txt" >"$T/both.svg"
cat "$T/one.txt" "$T/two.txt" >"$T/cat.txt"
"$PERFKIT" flamegraph --hash "$T/cat.txt" >"$T/cat.svg"
same_file 'several files read as one stream' "$T/cat.svg" "$T/both.svg"
if have_shared "$FG"; then
	frames "$T/both.svg" >"$T/both.tsv"
	expect 'fractional counts kept in the total' grep -q 'all (16 samples, 100%)' "$T/both.tsv"
fi

"$PERFKIT" flamegraph --hash -o "$T/out.svg" "$T/one.txt" >"$T/stdout.txt"
same_file '-o writes the same SVG' "$T/file.svg" "$T/out.svg"
expect '-o leaves stdout empty' test ! -s "$T/stdout.txt"
expect '-o leaves no temporary file' test "$(ls "$T" | grep -c '\.tmp')" -eq 0

# --cp: palette.map in the current folder is written, then reused
mkdir -p "$T/cp" && cp "$T/one.txt" "$T/cp/"
(cd "$T/cp" && "$PERFKIT" flamegraph --cp one.txt >first.svg)
expect '--cp writes palette.map' grep -q '^main->rgb(' "$T/cp/palette.map"
sed -i 's/^main->.*/main->rgb(1,2,3)/' "$T/cp/palette.map"
(cd "$T/cp" && "$PERFKIT" flamegraph --cp one.txt >second.svg)
expect '--cp reads colours from palette.map' grep -q 'fill="rgb(1,2,3)"' "$T/cp/second.svg"

# --minwidth in %: frames under 25% of the total vanish
if have_shared "$FG"; then
	"$PERFKIT" flamegraph --minwidth 25% "$T/one.txt" | frames --no-fill /dev/stdin >"$T/mw.tsv"
	expect '--minwidth % drops narrow frames' sh -c "! grep -q '	d (' '$T/mw.tsv' && grep -q '	b (' '$T/mw.tsv'"

	# differential input (diff-folded output) colours grown frames red
	printf 'main;a 10 20\nmain;b 10 5\n' >"$T/diff.txt"
	"$PERFKIT" flamegraph "$T/diff.txt" | frames /dev/stdin >"$T/diff.tsv"
	expect 'differential: grown frame is red with +%' grep -q 'rgb(255,.*a (20 samples, 80.00%; +40.00%)' "$T/diff.tsv"
	expect 'differential: shrunk frame is blue' grep -q 'rgb(.*,255)	b (5 samples, 20.00%; -20.00%)' "$T/diff.tsv"
fi

# the page: our script, the controls, CDATA intact, valid JavaScript
"$PERFKIT" flamegraph "$T/one.txt" >"$T/page.svg"
for id in details unzoom search ignorecase matched title frames; do
	expect "page has id=\"$id\"" grep -q "id=\"$id\"" "$T/page.svg"
done
if have node; then
	sed -n '/<!\[CDATA\[/,/\]\]>/p' "$T/page.svg" | sed '1d;$d' >"$T/page.js"
	expect 'embedded script is valid JavaScript' node --check "$T/page.js"
else
	skip 'node not installed: script syntax not checked'
fi

# errors
"$PERFKIT" flamegraph "$T/nosuch.txt" >/dev/null 2>"$T/err"
rc=$?
expect 'missing file: exit 1' test $rc -eq 1
expect 'missing file: message names it' grep -q "perfkit flamegraph: cannot open '$T/nosuch.txt'" "$T/err"
# among several (flamegraph.pl's <>): named and skipped, the others drawn
printf 'a;b 3\na;c 2\n' >"$T/one.folded"
mkdir -p "$T/adir"
"$PERFKIT" flamegraph "$T/one.folded" "$T/nosuch.txt" "$T/adir" >"$T/several.svg" 2>"$T/err"
rc=$?
expect "a missing file and a directory among others: exit 1 ($rc)" test $rc -eq 1
expect '… each named once, skipped' sh -c "[ \$(grep -c 'cannot open .*; skipped' '$T/err') = 2 ]"
expect '… the other file drawn' grep -q '<title>b (3 samples' "$T/several.svg"
printf 'no counts\n\n' | "$PERFKIT" flamegraph >"$T/empty.svg" 2>"$T/err"
rc=$?
expect 'no valid input: exit 2 (P2 acceptance item 4)' test $rc -eq 2
expect 'no valid input: message' grep -q 'no stack counts' "$T/err"
expect 'no valid input: still a well-formed SVG' python3 -c "import sys,xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$T/empty.svg"
"$PERFKIT" flamegraph --nosuch "$T/one.txt" >/dev/null 2>&1
expect 'unknown option: exit 2' test $? -eq 2
"$PERFKIT" flamegraph --minwidth 5px "$T/one.txt" >/dev/null 2>&1
expect 'bad --minwidth: exit 2' test $? -eq 2
"$PERFKIT" flamegraph --colors nosuch "$T/one.txt" >/dev/null 2>&1
expect 'unknown palette: exit 2' test $? -eq 2
"$PERFKIT" flamegraph --help >"$T/help.txt"
expect '--help: exit 0 and usage' grep -q 'usage: perfkit flamegraph' "$T/help.txt"
"$PERFKIT" flamegraph -o "$T/cmd.svg" -- true >/dev/null 2>&1
expect '"-- CMD" syntax is accepted (not a usage error)' test $? -ne 2
printf 'a 1\n' | "$PERFKIT" flamegraph -o "$T/ro/x.svg" 2>"$T/err"
expect 'unwritable -o: exit 1' test $? -eq 1

# perf.data input (needs perf and a usable cpu-clock event)
if have perf && can_perf_event && perf record -q -e cpu-clock -c 100000 -g -o "$T/perf.data" -- \
	sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done' >/dev/null 2>&1; then
	"$PERFKIT" flamegraph "$T/perf.data" >"$T/pd.svg" 2>"$T/err"
	expect 'perf.data input: exit 0' test $? -eq 0
	if have_shared "$FG"; then
		expect 'perf.data input: frames drawn' sh -c "python3 '$FG' '$T/pd.svg' | grep -q 'all ('"
	fi
	expect 'perf.data input: the workload is in the graph' grep -q '<title>sh ' "$T/pd.svg"
else
	skip 'perf record with cpu-clock not usable here'
fi

# files made to be shared get the umask's mode, as `flamegraph.pl > x.svg`
printf 'a;b 1\n' >"$T/um.folded"
(umask 022 && "$PERFKIT" flamegraph -o "$T/um.svg" "$T/um.folded" 2>/dev/null)
expect "-o a new SVG under umask 022: mode 644 ($(stat -c %a "$T/um.svg" 2>/dev/null))" \
	test "$(stat -c %a "$T/um.svg" 2>/dev/null)" = 644
(umask 077 && "$PERFKIT" flamegraph -o "$T/um2.svg" "$T/um.folded" 2>/dev/null)
expect "... under umask 077: 600" test "$(stat -c %a "$T/um2.svg" 2>/dev/null)" = 600

# nothing to draw with -o: the file is left as it was, exit 2
printf 'a;b 1\n' >"$T/keep.svg"
: | "$PERFKIT" flamegraph -o "$T/keep.svg" 2>"$T/err"; rc=$?
expect "empty input with -o: exit 2, FILE untouched ($rc)" sh -c "[ $rc -eq 2 ] && [ \"\$(cat '$T/keep.svg')\" = 'a;b 1' ]"
expect "... and said" grep -q 'keep.svg not written' "$T/err"
# counts past the largest double: one line, nothing drawn (not NaN widths)
big=1$(printf '0%.0s' $(seq 308))
printf 'a;b %s\na;c %s\n' "$big" "$big" | "$PERFKIT" flamegraph >"$T/big.svg" 2>"$T/err"; rc=$?
expect "counts adding up past 1.8e308: exit 1, no SVG ($rc)" sh -c "[ $rc -eq 1 ] && [ ! -s '$T/big.svg' ]"
expect "... said" grep -q 'largest number' "$T/err"
# '--' ends the options when data follows, as in flamegraph.pl
for i in $(seq 120); do echo 'a;b 1'; done >"$T/dd.folded"
"$PERFKIT" flamegraph -- "$T/dd.folded" >"$T/dd.svg" 2>"$T/err"
expect "flamegraph -- FILE draws FILE" grep -q 'all (120 samples' "$T/dd.svg"
"$PERFKIT" flamegraph -- "$T/nosuch.folded" >/dev/null 2>"$T/err"; rc=$?
expect "flamegraph -- MISSING: said missing, not run as a command ($rc)" grep -q "cannot open '.*nosuch.folded'" "$T/err"
"$PERFKIT" flamegraph "$T" >/dev/null 2>"$T/err"
expect "a directory as input: named in the message" grep -q "^perfkit flamegraph: $T: " "$T/err"
"$PERFKIT" flamegraph "$T/um.folded" -- "$T/dd.folded" >"$T/dd2.svg" 2>"$T/err"
expect "FILE -- FILE draws both" grep -q 'all (121 samples' "$T/dd2.svg"
# the low-count warning only when the counts are samples (flamegraph.pl)
printf 'a;b 5\n' | "$PERFKIT" flamegraph --countname bytes >/dev/null 2>"$T/err"
expect "--countname bytes: no low-sample warning" sh -c "! grep -q 'fewer than 100' '$T/err'"
printf 'a;b 5\n' | "$PERFKIT" flamegraph >/dev/null 2>"$T/err"
expect "samples: the warning" grep -q 'fewer than 100' "$T/err"

# --notes: a comment as flamegraph.pl writes it (entities are not read in
# a comment: '&' stays), written empty without --notes; "--" may not be in
# a comment, '<' and '>' are refused as the Perl script refuses them
printf 'a;b 5\n' | "$PERFKIT" flamegraph --notes 'x & y -- z' >"$T/n.svg" 2>/dev/null
expect "--notes: the comment, '&' as given, '--' broken" grep -qxF '<!-- NOTES: x & y - - z -->' "$T/n.svg"
printf 'a;b 5\n' | "$PERFKIT" flamegraph >"$T/n0.svg" 2>/dev/null
expect "no --notes: an empty NOTES comment (flamegraph.pl's)" grep -qxF '<!-- NOTES:  -->' "$T/n0.svg"
printf 'a;b 5\n' | "$PERFKIT" flamegraph --notes 'a<b' >/dev/null 2>&1
expect "--notes with '<': refused, exit 2" test $? = 2

# perf script's text given to flamegraph (as to flamegraph.pl, not its
# input): refused, the message says to fold it first; a stray bad line in
# folded text gets no such hint
printf 'prog 1 1.000000: 250000 cpu-clock: \n\t401000 main+0x10 (/bin/prog)\n\n' >"$T/ps.txt"
"$PERFKIT" flamegraph "$T/ps.txt" >"$T/ps.svg" 2>"$T/ps.err"
expect "perf script text: exit 2, 'fold it first (perfkit collapse ...)'" \
	sh -c "[ $? -eq 2 ] && grep -q 'looks like perf script output: fold it first (perfkit collapse' '$T/ps.err'"
printf 'a;b 1\nbad line\n' | "$PERFKIT" flamegraph >/dev/null 2>"$T/bad.err"
expect "... a bad line in folded text: no such hint" sh -c "! grep -q 'perf script' '$T/bad.err'"

done_testing
