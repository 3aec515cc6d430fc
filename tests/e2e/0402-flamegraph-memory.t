#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# flamegraph on folded text: memory follows the distinct stacks, not the
# lines (lines of one stack are summed as they are read, in 1 MB pieces;
# the input was held whole, mapped or read: the same stacks four times took
# four times the memory), and summing them draws the same graph.
. "$(dirname "$0")/lib.sh"

# the same graph whether a stack's lines are summed first or not
printf 'a;b 1\nx;y 5\na;b 2\na;b;c 4\n' >"$T/split"
printf 'a;b 3\na;b;c 4\nx;y 5\n' >"$T/summed"
"$PERFKIT" flamegraph "$T/split" >"$T/split.svg" 2>/dev/null
"$PERFKIT" flamegraph "$T/summed" >"$T/summed.svg" 2>/dev/null
same_file 'lines of one stack drawn as their sum' "$T/summed.svg" "$T/split.svg"
# differential lines are not summed: flamegraph.pl keeps the delta of the
# first line of a stack (+1 of 6 here), not the sum of the deltas (+2)
printf 'a;b 3 4\na;b 1 2\n' >"$T/split2"
"$PERFKIT" flamegraph "$T/split2" >"$T/split2.svg" 2>/dev/null
expect "differential lines of one stack: the first line's delta (flamegraph.pl)" \
	grep -q '<title>b (6 samples, 100.00%; +16.67%)' "$T/split2.svg"
# fractional counts are not summed early (flamegraph.pl adds them in
# drawing order), nor are invalid lines: still reported with their numbers
printf 'a;b 0.5\nbad line\na;b 0.25\nalso bad\n' >"$T/frac"
"$PERFKIT" flamegraph "$T/frac" >"$T/frac.svg" 2>"$T/frac.err"
expect 'fractions: drawn' grep -q '<title>b (1 samples' "$T/frac.svg"
expect 'fractions: their total' grep -q 'only 0.75 samples in all' "$T/frac.err"
expect 'invalid lines named by their line numbers' grep -q "line 2 'bad line', line 4 'also bad'" "$T/frac.err"

if [ "${PK_SAN:-0}" = 1 ]; then
	skip "peak RSS under the sanitizers (their shadow memory counts)"
elif [ -x /usr/bin/time ]; then
	# 60 000 distinct stacks of 24 frames (~14 MB), then the same four times
	awk 'BEGIN { for (i = 0; i < 60000; i++) { s = "main"; for (d = 0; d < 23; d++) s = s ";fn_" (i * 7 + d * 13) % 5003 "_" d; print s, i % 97 + 1 } }' >"$T/one"
	cat "$T/one" "$T/one" "$T/one" "$T/one" >"$T/four"
	/usr/bin/time -f %M -o "$T/m1" "$PERFKIT" flamegraph "$T/one" >"$T/one.svg" 2>/dev/null
	/usr/bin/time -f %M -o "$T/m4" "$PERFKIT" flamegraph "$T/four" >"$T/four.svg" 2>/dev/null
	m1=$(tail -1 "$T/m1") m4=$(tail -1 "$T/m4")
	diag "peak RSS: ${m1} KB for $(($(stat -c %s "$T/one") >> 20)) MB of folded text, ${m4} KB for four times the lines"
	expect 'four times the lines: peak memory < 1.5x that of once' test $((m4 * 2)) -lt $((m1 * 3))
	cat "$T/four" | /usr/bin/time -f %M -o "$T/m4p" "$PERFKIT" flamegraph >/dev/null 2>&1
	m4p=$(tail -1 "$T/m4p")
	expect '... and from a pipe' test $((m4p * 2)) -lt $((m1 * 3))
	expect 'both graphs drawn' test -s "$T/one.svg" -a -s "$T/four.svg"
	# the same frames, four times as wide in counts
	expect 'same number of frames' test "$(grep -c '<g>' "$T/one.svg")" = "$(grep -c '<g>' "$T/four.svg")"
else
	skip "no /usr/bin/time for the peak-memory check"
fi
done_testing
