#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit bench interleaves runs (A B, B A, …): a command that gets slower
# with every run it makes — it reads and bumps a counter file and burns
# 5 ms more CPU time each time (spinning on its own CPU clock, so a loaded
# machine does not change what it costs) — compared with itself is called
# slower in hyperfine's order (--no-interleave: all of A's runs come first)
# and not significantly different interleaved.  The verdict is on CPU time
# (--metric=cpu): the drift (5 ms a run, 45 ms between the halves) is large
# against the noise of CPU time, which waiting for a CPU does not lengthen.
. "$(dirname "$0")/lib.sh"

cat >"$T/drift.c" <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
	long k = 0;
	FILE *f = fopen(argv[1], "r");
	if (f) {
		if (fscanf(f, "%ld", &k) != 1)
			k = 0;
		fclose(f);
	}
	if (!(f = fopen(argv[1], "w")))
		return 1;
	fprintf(f, "%ld\n", k + 1);
	fclose(f);
	double until = atof(argv[2]) * (double)k / 1e3;   /* seconds of CPU */
	struct timespec ts;
	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < until);
	return 0;
}
EOF2
cc -O2 -o "$T/drift" "$T/drift.c" || { not_ok "build drift.c"; done_testing; exit; }

"$PERFKIT" bench -N -w 1 -r 8 --metric=cpu --no-interleave --export-json "$T/seq.json" \
	-n A "$T/drift $T/c1 5" -n B "$T/drift $T/c1 5" >"$T/seq" 2>&1
expect "--no-interleave: B (run after A) is called slower, 2x at least" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["order"] == "sequential"
c = d["comparisons"][0]
assert c["command"] == "B" and c["comparison"]["verdict"] == "higher", c
assert c["comparison"]["ratio"] > 2, c' "$T/seq.json"

"$PERFKIT" bench -N -w 1 -r 8 --metric=cpu --export-json "$T/int.json" \
	-n A "$T/drift $T/c2 5" -n B "$T/drift $T/c2 5" >"$T/int" 2>&1
expect "interleaved: no significant difference, ratio within 10 %" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["order"] == "interleaved"
c = d["comparisons"][0]["comparison"]
assert c["verdict"] in ("no_difference", "below_min_effect"), c
assert c["ratio"] < 1.1, c' "$T/int.json"
expect "interleaved: both commands saw early and late runs" python3 -c '
import json, sys
a, b = json.load(open(sys.argv[1]))["results"]
for r in (a, b):
    assert min(r["cpu_times"]) < 0.03 and max(r["cpu_times"]) > 0.06, r["cpu_times"]' "$T/int.json"
diag "$(grep -E 'verdict|times' "$T/seq" "$T/int")"

# --setup/--cleanup: each command's series between its own setup and cleanup
# (hyperfine's -L rev a,b -s 'git checkout {rev} && make'), not interleaved
cd "$T" || exit 1
"$PERFKIT" bench -r 2 -w 1 -L v 1,2 -s 'echo {v} >st' -c 'echo done{v} >>log' \
	'test "$(cat st)" = {v} && echo run{v} >>log' >"$T/setup.out" 2>&1
rc=$?
expect "--setup per parameter: each command's runs see its own setup (exit $rc)" test $rc -eq 0
expect "... in order: 1's runs, its cleanup, then 2's" \
	test "$(tr '\n' ' ' <"$T/log")" = "run1 run1 run1 done1 run2 run2 run2 done2 "
expect "... and the text says why the runs are not interleaved" grep -q 'each command.s runs together' "$T/setup.out"
# a run's stdin is /dev/null (hyperfine's), also with --show-output
echo from-stdin | "$PERFKIT" bench -N -r 2 --show-output cat >"$T/stdin.out" 2>&1
expect "--show-output: the runs read /dev/null, not bench's stdin" sh -c "! grep -q from-stdin '$T/stdin.out'"
# --style none: the text goes nowhere, an export to /dev/stdout comes out
"$PERFKIT" bench -N -r 2 --style none true --export-json /dev/stdout >"$T/none.json" 2>/dev/null
expect "--style none --export-json /dev/stdout: the JSON on stdout, nothing else" \
	python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert d["results"][0]["command"] == "true"' "$T/none.json"
done_testing
