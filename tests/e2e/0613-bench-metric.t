#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit bench --metric: the verdict on instructions is deterministic on a
# busy machine (two commands that differ by a known count, 10 of 10 the
# same verdict while two CPU hogs run, 2 of 2 where the counts are
# simulated); --metric=cpu judges CPU time, not
# waiting (sleep is cheap); every run's CPU time is exported; the busy
# warning names the figures and the metric (a fake /proc through
# PERFKIT_PROC); bad input.
. "$(dirname "$0")/lib.sh"

case $(uname -m) in
x86_64) loop='1: dec %0\n\tjnz 1b' ;;
aarch64) loop='1: subs %0, %0, #1\n\tb.ne 1b' ;;
*) skip "no spin loop for $(uname -m)"; done_testing; exit ;;
esac
# spin N: exactly 2 N instructions in its loop
cat >"$T/spin.c" <<EOF
#include <stdlib.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	if (n > 0)
		__asm__ volatile("$loop" : "+r"(n) : : "cc");
	return 0;
}
EOF
cc -O2 -o "$T/spin" "$T/spin.c" || { not_ok "build spin.c"; done_testing; exit; }
SPIN=$T/spin

# two CPU hogs, killed on exit whatever happens
hogs=()
trap '[ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
for i in 1 2; do
	( while :; do :; done ) &
	hogs+=($!)
done

"$PERFKIT" bench -N -r 3 --metric=instructions --export-json "$T/i.json" \
	"$SPIN 100000" "$SPIN 200000" >"$T/i.out" 2>"$T/i.err"
rc=$?
if [ $rc -ne 0 ] && grep -q 'none can be simulated' "$T/i.err"; then
	skip "--metric=instructions: no PMU and no Valgrind tool here ($(head -1 "$T/i.err"))"
	done_testing
	exit
fi
expect "--metric=instructions runs (exit 0)" test $rc -eq 0
sed 's/^/# /' "$T/i.err" | head -5
diag "$(grep -E 'Instructions|verdict|Warning' "$T/i.out")"
expect "the summary names the metric" grep -q '^Summary (verdict on instructions, \(simulated\|counted\))$' "$T/i.out"
expect "each benchmark shows its instruction count" test "$(grep -c '^  Instructions: ' "$T/i.out")" = 2
expect "JSON: metric, per-run counts and CPU times, the difference is the known 200000 (±1 %)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["metric"] == "instructions" and d["instructions_source"] in ("simulated", "counted"), d
a, b = d["results"]
for r in (a, b):
    assert len(r["instruction_counts"]) == 3 and len(r["cpu_times"]) == 3, r
    assert all(abs(c - u - s) < 1e-9 for c, u, s in zip(r["cpu_times"], r["user_times"], r["system_times"])), r
diff = b["instructions"] - a["instructions"]
assert abs(diff - 200000) <= 2000, diff' "$T/i.json"
want="verdict on instructions: '$SPIN 200000' executes more instructions than '$SPIN 100000' (significant at 95 %)"
# 10 benches where instructions are counted (a PMU: the load could move the
# counts); 2 where they are simulated (Valgrind counts the same program's
# instructions the same in every run, whatever the load: more runs check
# nothing more, at about 1.5 s of CPU each); 3 in the sanitizer pass (which
# looks for memory errors: the simulations cost the same there).  Two at a
# time: the machine only busier (four CPU-bound processes), the wall time
# two thirds of one after the other
n=10
grep -q '"instructions_source" *: *"simulated"' "$T/i.json" && n=2
[ -n "${PK_SAN:-}" ] && [ "$n" -gt 3 ] && n=3
verdicts() { # i... — bench i writes $T/vi and its exit status $T/vi.rc
	for i in "$@"; do
		"$PERFKIT" bench -N -r 2 --metric=instructions "$SPIN 100000" "$SPIN 200000" >"$T/v$i" 2>&1
		echo $? >"$T/v$i.rc"
	done
}
verdicts $(seq 1 2 "$n") &
odd=$!
verdicts $(seq 2 2 "$n")
wait $odd
same=0
for i in $(seq "$n"); do
	[ "$(cat "$T/v$i.rc" 2>/dev/null)" = 0 ] && grep -qF "$want" "$T/v$i" && same=$((same + 1))
done
expect "the same verdict in $n of $n runs with two CPU hogs running ($same)" test "$same" -eq "$n"
# the hogs' work is done: what follows reads the CPU time of a sleep, the
# wall time of a short spin and fake /proc files
kill "${hogs[@]}" 2>/dev/null; wait "${hogs[@]}" 2>/dev/null; hogs=()

# --metric=cpu: sleep waits (long wall time, almost no CPU); spin works
"$PERFKIT" bench -N -r 5 --metric=cpu --export-csv "$T/c.csv" 'sleep 0.2' "$SPIN 60000000" >"$T/c.out" 2>&1
diag "$(grep -E 'CPU|verdict' "$T/c.out")"
expect "--metric=cpu: the summary names the metric" grep -q '^Summary (verdict on user+sys CPU time)$' "$T/c.out"
expect "--metric=cpu: each benchmark shows its CPU time" test "$(grep -c '^  CPU (mean ± σ): ' "$T/c.out")" = 2
expect "--metric=cpu: sleep is the cheaper, though the slower" grep -qF "verdict on CPU time: '$SPIN 60000000' uses more CPU time than 'sleep 0.2' (significant at 95 %)" "$T/c.out"
expect "--metric=cpu: CSV rows say the metric with the CPU time" \
	sh -c "grep -c '^sleep 0.2,.*,5,0,cpu,[0-9.e-]*,[0-9.e-]*,,,' '$T/c.csv' | grep -qx 1"
kill "${hogs[@]}" 2>/dev/null
wait "${hogs[@]}" 2>/dev/null
hogs=()
# (once the hogs are gone: a wall-time verdict under them would hang on the
# load) the default metric, wall time, judges the other way
"$PERFKIT" bench -N -r 3 'sleep 0.5' "$SPIN 20000000" >"$T/w.out" 2>&1
expect "the default (wall) verdict goes the other way" grep -qF "verdict: 'sleep 0.5' is slower than '$SPIN 20000000'" "$T/w.out"

# the busy warning, from a fake /proc: a load average above the CPUs
mkdir "$T/busy" "$T/calm"
ncpu=$(getconf _NPROCESSORS_ONLN)
echo "$((ncpu + 7)).00 1.00 1.00 3/200 12345" >"$T/busy/loadavg"
echo "0.00 0.00 0.00 1/200 12345" >"$T/calm/loadavg"
printf 'cpu  100 0 100 1000 0 0 0 0 0 0\n' | tee "$T/busy/stat" >"$T/calm/stat"
PERFKIT_PROC=$T/busy "$PERFKIT" bench -N -r 2 --metric=cpu --export-json "$T/b.json" true >"$T/b.out" 2>&1
expect "busy: a warning with the load average and the CPUs" grep -q "^Warning: the machine was busy during the runs (load average $((ncpu + 7)).00 on $ncpu CPU" "$T/b.out"
expect "busy: ... naming the metric of the verdict" grep -q 'The verdict is on user+sys CPU time' "$T/b.out"
expect "busy: ... and in the JSON" python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["machine"]
assert m["busy"] is True and m["load_average"] > m["cpus"], m' "$T/b.json"
PERFKIT_PROC=$T/calm "$PERFKIT" bench -N -r 2 true >"$T/q.out" 2>&1
expect_fail "calm: no warning" grep -q 'machine was busy' "$T/q.out"
# steal rising during the runs: --prepare moves the fake counters on
# (+300 jiffies, 100 of them stolen: 25 %)
mkdir "$T/steal"
cp "$T/calm/loadavg" "$T/calm/stat" "$T/steal/"
PERFKIT_PROC=$T/steal "$PERFKIT" bench -N -r 2 --metric=cpu \
	-p "printf 'cpu  200 0 200 1100 0 0 0 100 0 0\\n' >'$T/steal/stat'" true >"$T/s.out" 2>&1
expect "steal: a warning with the steal share" grep -q '^Warning: the machine was busy during the runs (.*CPU steal 25.0 %)' "$T/s.out"

# bad input
"$PERFKIT" bench --metric=cycles true >/dev/null 2>"$T/e1"
expect "--metric=cycles: usage error (2)" test $? = 2
expect "... one line naming the choices" grep -qx "perfkit bench: --metric expects wall, cpu or instructions, got 'cycles'" "$T/e1"
if grep -q '"simulated"' "$T/i.json" 2>/dev/null; then
	PERFKIT_VALGRIND_LIB=$T/none "$PERFKIT" bench -N -r 2 --metric=instructions true >/dev/null 2>"$T/e2"
	expect "no Valgrind tool: exit 1" test $? = 1
	expect "... one line saying why" sh -c "test \$(wc -l <'$T/e2') = 1 && grep -q 'no PMU to count instructions here, and none can be simulated' '$T/e2'"
	"$PERFKIT" bench -N -r 2 --metric=instructions "$T/nonexistent" >/dev/null 2>"$T/e3"
	rc=$?
	expect "a program that cannot be run: exit 1, named" sh -c "test $rc = 1 && grep -q nonexistent '$T/e3'"
	# one run (both its native and its simulated execution) does other work:
	# an outlier in simulated counts is not load, so no load advice
	# (a C program, not a shell script: Valgrind starts one program per run,
	# not a shell and then the spin, about 1 s less per simulated run)
	cat >"$T/vary.c" <<EOF
#include <stdio.h>
int main(void)
{
	long n = 0, k;
	FILE *f = fopen("$T/vary.n", "r");

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = 0;
		fclose(f);
	}
	f = fopen("$T/vary.n", "w");
	if (!f)
		return 1;
	fprintf(f, "%ld\\n", n + 1);
	fclose(f);
	k = n == 2 || n == 3 ? 300000 : 1000;
	__asm__ volatile("$loop" : "+r"(k) : : "cc");
	return 0;
}
EOF
	cc -O2 -o "$T/vary" "$T/vary.c" || not_ok "build vary.c"
	"$PERFKIT" bench -N -r 5 --metric=instructions "$T/vary" >"$T/v.out" 2>&1
	diag "$(grep -A1 -i 'outl' "$T/v.out")"
	expect "simulated counts with an outlier: it is reported, as different work" grep -q 'outlying simulated instruction counts.*do not depend on load' "$T/v.out"
	expect_fail "... without load advice" grep -q 'quieter system' "$T/v.out"
else
	skip "instructions are counted here: no simulator to miss"
fi
done_testing
