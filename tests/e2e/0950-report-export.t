#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit report --export=pprof|speedscope -o FILE: the pprof file decodes
# with a real pprof reader (npm's pprof-format, tests/pprof) with the same
# sample count and event total as the report, and the same hottest function;
# the speedscope JSON parses and its weights add up to the same total.
# Lines and inline frames (pprof's model): a -O2 -g build whose
# always-inline helper holds the loop gives a location whose lines are
# [helper (inlined), outer] at the loop's and the call's source lines,
# functions carry the source file, and a caller's location names the line
# of its call; a binary rebuilt since has its lines read from the copy by
# build-id, or none.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/burn2to1
[ -n "${PK_SAN:-}" ] && ms=300 || ms=500
R=$TOP/tests/pprof

"$PERFKIT" record -g -F 999 -o "$T/r.data" -- "$W" $ms >/dev/null 2>&1
"$PERFKIT" report -i "$T/r.data" --no-children >"$T/rep" 2>/dev/null
nsamples=$(awk '/^# Samples:/ { print $3; exit }' "$T/rep")
total=$(awk -F': ' '/^# Event count/ { print $2; exit }' "$T/rep")
hot=$(awk '!/^#/ && NF && $0 ~ /%/ { print $NF; exit }' "$T/rep")
diag "report: $nsamples samples, event count $total, hottest $hot"

expect "export pprof" "$PERFKIT" report -i "$T/r.data" --export=pprof -o "$T/p.pb.gz"
expect "pprof file is gzip" sh -c "gzip -t '$T/p.pb.gz'"
if have node && [ -f "$R/node_modules/pprof-format/package.json" ]; then
	(cd "$R" && node summary.js "$T/p.pb.gz") >"$T/sum" 2>&1
	diag "$(cat "$T/sum")"
	expect "pprof-format decodes it: sample count = report's ($nsamples)" \
		grep -qx "type samples count $nsamples" "$T/sum"
	expect "pprof-format: cpu-clock total = report's event count ($total)" \
		grep -qx "type cpu-clock nanoseconds $total" "$T/sum"
	expect "pprof-format: hottest leaf function = report's ($hot)" \
		test "$(awk '$1 == "self" { print $2; exit }' "$T/sum")" = "$hot"
	stacks=$(awk '$1 == "type" { n++ } END { print n }' "$T/sum")
	expect "two sample types" test "$stacks" = 2
else
	skip "node or tests/pprof/node_modules missing (scripts/install-deps)"
fi

expect "export speedscope" "$PERFKIT" report -i "$T/r.data" --export=speedscope -o "$T/s.json"
if have python3; then
	python3 - "$T/s.json" >"$T/ss" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["profiles"][0]
assert len(p["samples"]) == len(p["weights"])
nf = len(d["shared"]["frames"])
assert all(0 <= i < nf for s in p["samples"] for i in s)
print(p["name"], sum(p["weights"]), p["endValue"])
PY
	diag "$(cat "$T/ss")"
	expect "speedscope JSON: weights add up to the event count" test "$(cat "$T/ss")" = "cpu-clock $total $total"
else
	skip "python3 missing"
fi
expect "speedscope stacks are root first (burn_two last, under a caller)" \
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); f=[x['name'] for x in d['shared']['frames']]; s=[[f[i] for i in st] for st in d['profiles'][0]['samples']]; sys.exit(0 if any(len(st) > 1 and st[-1] == 'burn_two' for st in s) and not any(len(st) > 1 and st[0] == 'burn_two' for st in s) else 1)" "$T/s.json"

# pprof: source lines and inline chains from DWARF
if have cc && have node && [ -f "$R/node_modules/pprof-format/package.json" ]; then
	cat >"$T/inl.c" <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
static inline __attribute__((always_inline)) void helper(long n)
{
	for (long i = 0; i < n; i++) sink += i * i; /* helper loop */
}
__attribute__((noinline)) void tick(void) { sink++; }
__attribute__((noinline)) void outer(long n)
{
	helper(n); /* outer calls helper */
	tick();
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	for (int k = 0; k < 20; k++)
		outer(n); /* main calls outer */
	return 0;
}
C
	loop=$(grep -n 'helper loop' "$T/inl.c" | cut -d: -f1)
	call=$(grep -n 'outer calls helper' "$T/inl.c" | cut -d: -f1)
	mcall=$(grep -n 'main calls outer' "$T/inl.c" | cut -d: -f1)
	if cc -O2 -g -o "$T/inl" "$T/inl.c" &&
	   "$PERFKIT" record --call-graph dwarf -F 2000 -o "$T/inl.data" -- "$T/inl" 10000000 >/dev/null 2>&1; then
		"$PERFKIT" report -i "$T/inl.data" --no-children >"$T/irep" 2>/dev/null
		expect "export pprof (inline workload)" \
			"$PERFKIT" report -i "$T/inl.data" --export=pprof -o "$T/inl.pb.gz"
		(cd "$R" && node dump.js "$T/inl.pb.gz") >"$T/dump" 2>&1
		expect "dump.js decodes it, every id it refers to exists" test $? = 0
		hotloc=$(awk -F'\t' '$1 == "loc" && $4 == "'"$T/inl"'" { print $6; exit }' "$T/dump")
		diag "hottest location in inl: $hotloc (loop line $loop, calls on $call, $mcall)"
		expect "hottest location: lines [helper (inlined) at the loop's line, outer at the call's]" \
			test "$hotloc" = "helper@inl.c:$loop|outer@inl.c:$call"
		expect "helper is never a location of its own (folded into outer's)" \
			sh -c "! grep -q '^loc.*	helper@[^|]*\$' '$T/dump'"
		expect "a caller's location: main at the line of its call to outer" \
			grep -q "^loc.*	main@inl.c:$mcall\$" "$T/dump"
		expect "functions carry the source file (helper, outer, main in inl.c)" \
			test "$(grep -cE '^function	[0-9]+	(helper|outer|main)	[a-z]+	inl.c$' "$T/dump")" = 3
		expect "the mapping says functions, files, lines and inline frames are there" \
			grep -qx "mapping	$T/inl	1	1	1	1" "$T/dump"
		# no debug info: kernel frames, _start (crt1.o); each must be one line 0 in the DSO
		nodbg=$(awk -F'\t' '$1 == "loc" && $6 !~ /\|/ && $6 == substr($6, 1, index($6, "@")) $4 ":0" { n++ } END { print n + 0 }' "$T/dump")
		badk=$(awk -F'\t' '$1 == "loc" && $4 == "[kernel.kallsyms]" && ($6 ~ /\|/ || $6 !~ /@\[kernel\.kallsyms\]:0$/) { n++ } END { print n + 0 }' "$T/dump")
		expect "frames without debug info: one line, line 0, the DSO as file ($nodbg such, $badk kernel ones otherwise)" \
			test "$nodbg" -gt 0 -a "$badk" = 0
		(cd "$R" && node summary.js "$T/inl.pb.gz") >"$T/isum" 2>&1
		expect "totals still the report's ($(awk '/^# Samples:/ { print $3; exit }' "$T/irep") samples)" \
			grep -qx "type samples count $(awk '/^# Samples:/ { print $3; exit }' "$T/irep")" "$T/isum"
		expect "pprof-format: hottest function (outermost line) = report's (outer)" \
			test "$(awk '$1 == "self" { print $2; exit }' "$T/isum")" = outer
		# rebuilt since the recording, lines shifted: DWARF from the copy by
		# build-id (as the symbols), else none; never the new binary's lines
		bid=$(readelf -n "$T/inl" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
		if [ -n "$bid" ]; then
			mkdir -p "$T/home/.debug/.build-id/${bid:0:2}/${bid:2}" "$T/nohome"
			cp "$T/inl" "$T/home/.debug/.build-id/${bid:0:2}/${bid:2}/elf"
			{ printf '/* shifted */\n/* by two lines */\n'; cat "$T/inl.c"; } >"$T/inl2.c"
			cc -O2 -g -o "$T/inl" "$T/inl2.c"
			HOME=$T/home "$PERFKIT" report -i "$T/inl.data" --export=pprof -o "$T/re.pb.gz" 2>/dev/null
			(cd "$R" && node dump.js "$T/re.pb.gz") >"$T/re.dump" 2>&1
			expect "rebuilt binary, copy in ~/.debug: the recorded binary's lines" \
				test "$(awk -F'\t' '$1 == "loc" && $4 == "'"$T/inl"'" { print $6; exit }' "$T/re.dump")" = \
				"helper@inl.c:$loop|outer@inl.c:$call"
			expect "rebuilt binary, copy in ~/.debug: no line from the new binary (inl2.c)" \
				sh -c "grep -q 'inl.c:' '$T/re.dump' && ! grep -q 'inl2.c' '$T/re.dump'"
			HOME=$T/nohome "$PERFKIT" report -i "$T/inl.data" --export=pprof -o "$T/re.pb.gz" 2>/dev/null
			(cd "$R" && node dump.js "$T/re.pb.gz") >"$T/re.dump" 2>&1
			expect "rebuilt binary, no copy: no lines rather than the new binary's" \
				sh -c "grep -qx 'mapping	$T/inl	1	0	0	0' '$T/re.dump' && ! grep -q 'inl.c' '$T/re.dump'"
		else
			skip "no readelf or no build-id in the workload"
		fi
	else
		skip "cc -O2 -g or record --call-graph dwarf failed"
	fi
else
	skip "cc, node or tests/pprof/node_modules missing"
fi

# usage errors and write errors: exit 2 / 1, no half-written file
"$PERFKIT" report -i "$T/r.data" --export=svg -o "$T/x" 2>/dev/null
expect "--export=svg is a usage error (2)" test $? = 2
"$PERFKIT" report -i "$T/r.data" --export=pprof 2>/dev/null
expect "--export without -o is a usage error (2)" test $? = 2
"$PERFKIT" report -i "$T/r.data" --export=pprof -o "$T/nodir/p.pb.gz" 2>"$T/err"
expect "unwritable -o: exit 1" test $? = 1
expect "unwritable -o: one message naming the path" grep -q "nodir/p.pb.gz" "$T/err"
expect "no temporary file left" test -z "$(ls "$T" | grep -i tmp)"
done_testing
