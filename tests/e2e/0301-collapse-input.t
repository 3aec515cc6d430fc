# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit collapse: input forms (stdin, '-', gzip, several files), options,
# usage and runtime errors, and hostile input (binary garbage, a 100 MB
# line, a 5000-frame stack) — no crash, a clear message or valid output.
. "$(dirname "$0")/lib.sh"

C=$SHARED/conformance/collapse-perf
in=$C/inputs/perf-dd-stacks-01.txt
want=$C/expected/perf-dd-stacks-01-collapsed-default.txt

# the conformance inputs of ../shared (skipped, visibly, without them)
if have_shared "$in" "$want" "$C/inputs/perf-cycles-instructions-01.txt"; then
	"$PERFKIT" collapse <"$in" >"$T/stdin.out"
	same_file 'reads standard input' "$want" "$T/stdin.out"
	"$PERFKIT" collapse - <"$in" >"$T/dash.out"
	same_file "'-' is standard input" "$want" "$T/dash.out"
	gzip -c "$in" >"$T/in.gz"
	"$PERFKIT" collapse <"$T/in.gz" >"$T/gz.out"
	same_file 'gzip on standard input' "$want" "$T/gz.out"
	"$PERFKIT" collapse "$T/in.gz" >"$T/gzf.out"
	same_file 'gzip file' "$want" "$T/gzf.out"
	cat "$T/in.gz" "$T/in.gz" >"$T/in2.gz"
	cat "$in" "$in" | "$PERFKIT" collapse >"$T/cat.out"
	"$PERFKIT" collapse "$in" "$in" >"$T/two.out"
	"$PERFKIT" collapse "$T/in2.gz" >"$T/two-gz.out"
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); print $0 " " 2 * n }' "$want" >"$T/double"
	same_file 'two files add up' "$T/double" "$T/two.out"
	same_file 'concatenated gzip members are all read' "$T/cat.out" "$T/two-gz.out"

	# --count weighs samples 1: the counts sum to the number of dd samples
	"$PERFKIT" collapse --count "$in" >"$T/count.out"
	samples=$(grep -c '^dd ' "$in")
	expect '--count: counts sum to the number of samples' \
		test "$(awk '{ s += $NF } END { print s }' "$T/count.out")" -eq "$samples"

	# --event-filter with --all, from perf-cycles-instructions
	"$PERFKIT" collapse --event-filter instructions "$C/inputs/perf-cycles-instructions-01.txt" >"$T/ev.out" 2>"$T/ev.err"
	expect '--event-filter EV (separate argument) keeps only that event' test -s "$T/ev.out"
	"$PERFKIT" collapse "$C/inputs/perf-cycles-instructions-01.txt" >/dev/null 2>"$T/mixed.err"
	expect 'mixed events: a warning names the first event, which is kept' \
		grep -q 'warning: .*filtering for events of type instructions' "$T/mixed.err"
fi

# a small input of our own for the rest
awk 'BEGIN { for (i = 0; i < 3000; i++) { printf "dd %d [000] %d.0: 1 cpu-clock:\n\t%x f%d (/bin/dd)\n\t1 main (/bin/dd)\n\n", i, i, i, i % 97 } }' >"$T/local.txt"
gzip -c "$T/local.txt" >"$T/local.gz"

"$PERFKIT" collapse --help >"$T/help" 2>&1
expect '--help exits 0 and lists --event-filter' grep -q -- '--event-filter' "$T/help"
"$PERFKIT" collapse --bogus "$T/local.txt" >/dev/null 2>"$T/usage.err"
expect 'unknown option exits 2' test $? -eq 2
expect 'unknown option is named' grep -q -- "--bogus" "$T/usage.err"
"$PERFKIT" collapse "$T/missing.txt" >"$T/missing.out" 2>"$T/missing.err"
expect 'missing file exits 1' test $? -eq 1
expect 'missing file: one line naming it' \
	test "$(grep -c "perfkit collapse: cannot open '$T/missing.txt'" "$T/missing.err")" -eq 1
same_file 'missing file: nothing on stdout' /dev/null "$T/missing.out"
# as stackcollapse-perf.pl (Perl's <>): a missing file among others is
# named and skipped, the others are read
"$PERFKIT" collapse "$T/missing.txt" "$T/local.txt" >"$T/missing2.out" 2>"$T/missing2.err"
expect 'a missing file among others exits 1' test $? -eq 1
expect 'a missing file among others: one line naming it' \
	test "$(grep -c "perfkit collapse: cannot open '$T/missing.txt'" "$T/missing2.err")" -eq 1
"$PERFKIT" collapse "$T/local.txt" >"$T/local.out" 2>/dev/null
same_file 'a missing file among others: the others collapsed' "$T/local.out" "$T/missing2.out"
mkdir "$T/adir"
"$PERFKIT" collapse "$T/adir" "$T/local.txt" >"$T/dir.out" 2>"$T/dir.err"
expect 'a directory among the files exits 1' test $? -eq 1
expect 'a directory: one line naming it' grep -q "perfkit collapse: cannot open '$T/adir': Is a directory" "$T/dir.err"
same_file 'a directory: the other files collapsed (Perl reads nothing of it)' "$T/local.out" "$T/dir.out"
printf '\037\213garbage, not deflate data' >"$T/bad.gz"
"$PERFKIT" collapse "$T/bad.gz" >/dev/null 2>"$T/badgz.err"
expect 'corrupt gzip exits 1' test $? -eq 1
expect 'corrupt gzip: message names the file' grep -q "bad.gz: corrupt gzip" "$T/badgz.err"

head -c 200 "$T/local.gz" >"$T/trunc.gz"
"$PERFKIT" collapse "$T/trunc.gz" >"$T/trunc.out" 2>"$T/trunc.err"
expect 'truncated gzip exits 1' test $? -eq 1
expect 'truncated gzip: message names the file' grep -q "trunc.gz: truncated gzip" "$T/trunc.err"
same_file 'truncated gzip: nothing on stdout' /dev/null "$T/trunc.out"

# hostile input
head -c 2000000 /dev/urandom >"$T/garbage"
"$PERFKIT" collapse "$T/garbage" >"$T/garbage.out" 2>"$T/garbage.err"
expect 'binary garbage: exit 0' test $? -eq 0
expect 'binary garbage: warnings are bounded' test "$(wc -l <"$T/garbage.err")" -le 6
expect 'binary garbage: warnings are printable ASCII' \
	test "$(LC_ALL=C tr -d '\n -~' <"$T/garbage.err" | wc -c)" -eq 0
expect 'binary garbage: every output line ends in a count' \
	test "$(LC_ALL=C awk '!/ [0-9]+$/ { n++ } END { print n + 0 }' "$T/garbage.out")" -eq 0

{ printf 'big 1 1.0: 3 cpu-clock:\n\t1 '; head -c 100000000 /dev/zero | tr '\0' 'x'; printf ' (/bin/big)\n\n'; } >"$T/longline"
"$PERFKIT" collapse "$T/longline" >"$T/long.out" 2>"$T/long.err"
expect '100 MB frame line: exit 0' test $? -eq 0
expect '100 MB frame line: one stack of that frame' \
	test "$(wc -c <"$T/long.out")" -eq $((4 + 100000000 + 3)) -a "$(head -c 5 "$T/long.out")" = "big;x" \
	-a "$(tail -c 3 "$T/long.out")" = " 3"
rm -f "$T/longline" "$T/long.out"

awk 'BEGIN { print "deep 1 1.0: 1 cpu-clock:"; for (i = 5000; i >= 1; i--) printf "\t%x f%d (/bin/deep)\n", i, i; print "" }' >"$T/deep"
"$PERFKIT" collapse "$T/deep" >"$T/deep.out"
expect '5000-frame stack: 5001 fields, root first' \
	test "$(awk -F';' '{ print NF, $2, $NF }' "$T/deep.out")" = "5001 f1 f5000 1"

# text is read in 4 MB blocks cut at blank lines and parsed on several
# threads (file or pipe): same output and same warnings (file line numbers)
# as the one-thread read of the same text gzipped; the first event of the
# whole text is the default filter
if have_shared "$C/inputs" && { [ "$(cat "$C"/inputs/*.txt 2>/dev/null | wc -c)" -gt 1000 ] ||
	{ skip "no ../shared/conformance/collapse-perf/inputs/*.txt of any size"; false; }; }; then
	for f in "$C"/inputs/*.txt; do cat "$f"; printf '\n\n'; done >"$T/round"
	cp "$T/round" "$T/big"
	# doubling: at most ~25 rounds whatever the size of round (checked non-empty)
	while [ "$(stat -c %s "$T/big")" -lt 20000000 ]; do
		cat "$T/big" "$T/big" >"$T/big2" && mv "$T/big2" "$T/big" || { not_ok "building a 20 MB input"; break; }
	done
	"$PERFKIT" collapse "$T/big" >"$T/big.file" 2>"$T/big.file.err"
	"$PERFKIT" collapse <"$T/big" >"$T/big.pipe" 2>"$T/big.pipe.err"
	gzip -1 -c "$T/big" >"$T/big.gz"
	"$PERFKIT" collapse "$T/big.gz" >"$T/big.one" 2>"$T/big.one.err"
	same_file 'large file (threads) = pipe (threads)' "$T/big.pipe" "$T/big.file"
	same_file 'large file (threads) = gzip (one thread)' "$T/big.one" "$T/big.file"
	sed 's/<stdin>/FILE/' "$T/big.pipe.err" >"$T/big.pipe.err2"
	sed "s|$T/big|FILE|" "$T/big.file.err" >"$T/big.file.err2"
	sed "s|$T/big.gz|FILE|" "$T/big.one.err" >"$T/big.one.err2"
	same_file 'large file: same warnings, same line numbers (pipe)' "$T/big.pipe.err2" "$T/big.file.err2"
	same_file 'large file: same warnings, same line numbers (one thread)' "$T/big.one.err2" "$T/big.file.err2"
	expect 'large file: there were warnings to compare' test -s "$T/big.one.err2"
	# memory is bounded by the blocks in flight (two per worker thread, one
	# worker per CPU the process may use: one here) and the distinct
	# stacks, not by the input: the same text four times takes about as much
	if [ "${PK_SAN:-0}" = 1 ]; then
		skip "peak RSS under the sanitizers (their shadow memory counts)"
	elif [ -x /usr/bin/time ] && have taskset; then
		cat "$T/big" "$T/big" "$T/big" "$T/big" >"$T/big4"
		/usr/bin/time -f %M -o "$T/m1" taskset -c 0 "$PERFKIT" collapse "$T/big" >/dev/null 2>&1
		/usr/bin/time -f %M -o "$T/m4" taskset -c 0 "$PERFKIT" collapse "$T/big4" >/dev/null 2>&1
		m1=$(tail -1 "$T/m1") m4=$(tail -1 "$T/m4")
		diag "peak RSS: ${m1} KB for $(($(stat -c %s "$T/big") >> 20)) MB, ${m4} KB for four times that"
		expect 'large file: peak memory of 4x the text < 1.5x that of 1x' test $((m4 * 2)) -lt $((m1 * 3))
		cat "$T/big4" | /usr/bin/time -f %M -o "$T/m4p" taskset -c 0 "$PERFKIT" collapse >/dev/null 2>&1
		m4p=$(tail -1 "$T/m4p")
		expect 'large file from a pipe: peak memory of 4x the text < 1.5x that of 1x' \
			test $((m4p * 2)) -lt $((m1 * 3))
		rm -f "$T/big4"
	else
		skip "no /usr/bin/time or taskset for the peak-memory check"
	fi
	rm -f "$T/big" "$T/big.gz" "$T/big.file" "$T/big.pipe" "$T/big.one"
fi

# no trailing newline, CRLF-free, and empty input
printf 'ab 1 1.0: 2 c:\n\t1 f (m)' | "$PERFKIT" collapse >"$T/nonl.out"
printf 'ab;f 2\n' >"$T/nonl.want"
same_file 'last sample without final newline is kept' "$T/nonl.want" "$T/nonl.out"
"$PERFKIT" collapse </dev/null >"$T/empty.out"
same_file 'empty input: empty output' /dev/null "$T/empty.out"

# options as stackcollapse-perf.pl's Getopt::Long reads them: one dash
# ("-pid"), and after the files
printf 'ab 7/8 1.0: 2 c:\n\t1 f (m)\n\ncd 9 1.1: 3 e:\n\t2 g (m)\n\n' >"$T/ev2.txt"
"$PERFKIT" collapse --tid "$T/ev2.txt" >"$T/tid.want" 2>/dev/null
"$PERFKIT" collapse -tid "$T/ev2.txt" >"$T/tid1.out" 2>/dev/null
same_file 'collapse -tid is --tid' "$T/tid.want" "$T/tid1.out"
"$PERFKIT" collapse "$T/ev2.txt" --tid >"$T/tid2.out" 2>/dev/null
same_file 'collapse FILE --tid: options after the file' "$T/tid.want" "$T/tid2.out"
# several files: one default event filter (the first file's first event)
# for all, as the Perl script reads them as one stream
printf 'ab 1 1.0: 2 x:\n\t1 f (m)\n\n' >"$T/ev1.txt"
"$PERFKIT" collapse "$T/ev1.txt" "$T/ev2.txt" >"$T/two.out" 2>"$T/two.err"
printf 'ab;f 2\n' >"$T/two.want"
same_file 'two files: the second one'"'"'s events (c, e) dropped, not the first file'"'"'s (x)' "$T/two.want" "$T/two.out"
expect 'two files: the warning names the event kept (x)' grep -q 'events of type x:' "$T/two.err"
done_testing
