# SPDX-License-Identifier: GPL-2.0-or-later
# Counts of 10^15 and more (issue 17, item 8): diff-folded prints integers
# as difffolded.pl does, and flamegraph reads a count written "1e+15" as a
# count, not as part of the frame name.
. "$(dirname "$0")/lib.sh"

printf 'a;b 1000000000000000\na;c 5\n' >"$T/before"
printf 'a;b 2000000000000000\na;c 7\na;d 123456789012345678\n' >"$T/after"
"$PERFKIT" diff-folded "$T/before" "$T/after" >"$T/out"
printf '%s\n' 'a;b 1000000000000000 2000000000000000' 'a;c 5 7' 'a;d 0 123456789012345678' >"$T/want"
same_file 'diff-folded: counts of 10^15 and more printed as integers' "$T/want" "$T/out"

"$PERFKIT" diff-folded "$T/before" "$T/after" | "$PERFKIT" flamegraph >"$T/d.svg" 2>"$T/d.err"
expect 'flamegraph reads diff-folded output of big counts' grep -q '<title>b (2,000,000,000,000,000 samples' "$T/d.svg"

printf 'a;b 1e+15 2e+15\n' | "$PERFKIT" flamegraph >"$T/e.svg" 2>"$T/e.err"
expect 'flamegraph: "1e+15 2e+15" is a differential count' \
	grep -q '<title>b (2,000,000,000,000,000 samples, [0-9.]*%; +' "$T/e.svg"
expect 'flamegraph: no frame named "b 1e+15"' sh -c "! grep -q 'b 1e+15' '$T/e.svg'"
printf 'a;c 3E2\na;d 100\n' | "$PERFKIT" flamegraph >"$T/f.svg" 2>"$T/f.err"
expect 'flamegraph: "3E2" reads 300' grep -q '<title>c (300 samples' "$T/f.svg"
# a count above 10^15 keeps every digit its double has (flamegraph.pl's
# frame times are Perl integers, its label sprintf("%.0f")): not 15
# significant digits
printf 'a;b 1234567890123456\n' | "$PERFKIT" flamegraph >"$T/g.svg" 2>/dev/null
expect 'flamegraph: 1234567890123456 shown whole' grep -q '<title>b (1,234,567,890,123,456 samples' "$T/g.svg"
printf 'a;b 12345678901234567890\n' | "$PERFKIT" flamegraph >"$T/h.svg" 2>/dev/null
expect 'flamegraph: a count past 2^63 as its double (…567,168), as flamegraph.pl' \
	grep -q '<title>b (12,345,678,901,234,567,168 samples' "$T/h.svg"
printf 'a;b 123456789012345678901234\n' | "$PERFKIT" flamegraph >"$T/i.svg" 2>/dev/null
expect 'flamegraph: past 2^64, 15 significant digits (Perl'"'"'s number)' \
	grep -q '<title>b (123,456,789,012,346,004,570,112 samples' "$T/i.svg"
done_testing
