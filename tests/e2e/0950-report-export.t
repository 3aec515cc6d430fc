#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit report --export=pprof|speedscope -o FILE: the pprof file decodes
# with a real pprof reader (npm's pprof-format, tests/pprof) with the same
# sample count and event total as the report, and the same hottest function;
# the speedscope JSON parses and its weights add up to the same total.
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
