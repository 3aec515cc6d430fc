#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Option values of record, report, annotate, flamegraph, calibrate, cache
# (--tlb, --stlb), diff, diff-folded, c2c report and tcplife go through
# base/parse like bench's and stat's (0614): a value outside its range, or
# not a number, is refused with one line naming the option and the range
# (exit 2), never clamped or read partly (strtod's "nan", a trailing word,
# 2^63 as a period).  Values in range still work.  report's --percent-limit
# is read as perf reads it instead.
. "$(dirname "$0")/lib.sh"

# usage PATTERN desc CMD... — exit 2, one line on stderr matching PATTERN
usage() {
	local pat=$1 d=$2; shift 2
	"$@" </dev/null >"$T/out" 2>"$T/err"
	local rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -qF -- "$pat" "$T/err"; then
		ok "$d"
	else
		not_ok "$d (exit $rc)"; sed 's/^/# /' "$T/err" | head -5
	fi
}

usage "-F expects an integer ≥ 1, got '0'" "record -F 0" "$PERFKIT" record -F 0 -o "$T/r.data" -- true
usage "-F expects an integer ≥ 1, got '99999999999999999999'" "record -F past 64 bits" \
	"$PERFKIT" record -F 99999999999999999999 -o "$T/r.data" -- true
usage "-c expects an integer from 1 to 9223372036854775807, got '9223372036854775808'" \
	"record -c 2^63 (the kernel refuses bit 63)" "$PERFKIT" record -c 9223372036854775808 -o "$T/r.data" -- true
usage "-p expects an integer ≥ 1, got '-5'" "record -p -5" "$PERFKIT" record -p -5 -o "$T/r.data"
usage "-m expects an integer from 0 to 1048576, got '1048577'" "record -m 1048577 (3 is rounded up to 4, as perf)" "$PERFKIT" record -m 1048577 -o "$T/r.data" -- true
usage "--call-graph dwarf,SIZE expects an integer from 1 to 65528, got '70000'" "record --call-graph dwarf,70000" \
	"$PERFKIT" record --call-graph dwarf,70000 -o "$T/r.data" -- true

# report's --percent-limit is the one option read as perf reads it
# (strtof's number, never refused; 0203 compares the rows with perf's)
for v in 5% 101 nan "' 5'" abc; do
	eval "\"\$PERFKIT\" report --percent-limit $v -i /dev/null" >/dev/null 2>"$T/err"
	rc=$?
	expect "report --percent-limit $v: accepted, as perf; /dev/null then fails to read (exit 1, got $rc)" \
		sh -c "[ $rc = 1 ] && grep -q 'not a perf.data file' '$T/err'"
done

usage "--threshold expects a number from 0 to 100, got '101'" "annotate --threshold=101" \
	"$PERFKIT" annotate --threshold=101 "$T/none.cg"
usage "--context expects an integer from 0 to 1000, got '5x'" "annotate --context=5x (no partial read)" \
	"$PERFKIT" annotate --context=5x "$T/none.cg"
usage "--min-percent expects a number from 0 to 100, got 'inf'" "annotate --min-percent inf" \
	"$PERFKIT" annotate -i "$T/none.data" --min-percent inf

usage "--width expects an integer from 21 to 10000000, got '1200.5'" "flamegraph --width 1200.5" \
	"$PERFKIT" flamegraph --width 1200.5 "$T/none.txt"
usage "--fontsize expects a number from 0.01 to 10000, got '0'" "flamegraph --fontsize 0" \
	"$PERFKIT" flamegraph --fontsize 0 "$T/none.txt"
usage "--minwidth (percent) expects a number from 0 to 100, got '200'" "flamegraph --minwidth 200%" \
	"$PERFKIT" flamegraph --minwidth 200% "$T/none.txt"
usage "--factor expects a number from 1e-09 to 1e+09, got 'x'" "flamegraph --factor x" \
	"$PERFKIT" flamegraph --factor x "$T/none.txt"
printf 'a;b 3\n' >"$T/in.txt"
"$PERFKIT" flamegraph --width 300 --fontsize 10.5 --minwidth 0.5% --factor 2 "$T/in.txt" >"$T/ok.svg" 2>/dev/null
expect "flamegraph with values in range: draws" grep -q '<svg' "$T/ok.svg"

usage "--scale expects a number from 0.001 to 1000, got '0'" "calibrate --scale 0" "$PERFKIT" calibrate --scale 0
usage "-r expects an integer from 1 to 1000, got '99999999999'" "calibrate -r 99999999999" \
	"$PERFKIT" calibrate -r 99999999999
usage "--min-effect expects a number ≥ 0, got 'nan'" "diff --min-effect nan" "$PERFKIT" diff --min-effect nan a b
usage "--min-effect expects a number ≥ 0, got 'inf'" "diff-folded --min-effect inf" \
	"$PERFKIT" diff-folded --min-effect inf a b
usage "--min-transfers expects an integer ≥ 0, got '12x'" "c2c report --min-transfers=12x" \
	"$PERFKIT" c2c report --min-transfers=12x

usage "--tlb ENTRIES expects an integer from 1 to 1048576, got ' 64'" "cache --tlb=' 64,4,4096' (no blanks)" \
	"$PERFKIT" cache "--tlb= 64,4,4096" -- true
usage "--stlb ASSOC expects an integer from 1 to 1048576, got '0'" "cache --stlb=1536,0" \
	"$PERFKIT" cache --stlb=1536,0 -- true

if "$PERFKIT" tcplife --help >/dev/null 2>&1; then
	usage "-L expects ports 1..65535 separated by commas, got '80,70000'" "tcplife -L 80,70000" "$PERFKIT" tcplife -L 80,70000
else
	skip "tcplife not built (no BPF tool chain)"
fi
done_testing
