#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit stat --simulate: the lessons show in the simulated counts, with
# pinned geometry and with the host's —
#  - matmul: naive's L1-dcache load-miss % >= 3x ikj's and >= 3x blocked's;
#  - branches: random's branch-miss % >= 5x sorted's;
# every simulated line is marked (simulated), cycles and IPC (estimated),
# the CSV and JSON records say their source, the model's breakdown adds up,
# a calibration file is used (and a broken one refused with its line), the
# exit status is CMD's; bad input (no Valgrind tool, a program that cannot
# run, one that crashes) gives one line each.
. "$(dirname "$0")/lib.sh"

MM=$PK_BUILD/examples/matmul
BR=$PK_BUILD/examples/branches
export XDG_CACHE_HOME=$T/cache
unset PERFKIT_CPIMODEL

if ! have valgrind || ! ls "$PK_BUILD"/vgtool/pkcache-* >/dev/null 2>&1; then
	skip "no valgrind or no build/vgtool/pkcache-* (Valgrind's dev files missing)"
	done_testing
	exit
fi
if ! can_perf_event; then
	skip "perf events not permitted (perf_event_paranoid)"
	done_testing
	exit
fi

PIN="--I1=32768,8,64 --D1=32768,8,64 --L2=1048576,16,64 --LL=33554432,16,64"

# pct FILE EVENT — the metric (percent) of a simulated CSV record
pct() { awk -F';' -v e="$2" '$3 == e && $NF == "simulated" { print $6 }' "$1"; }
ge() { awk -v a="$1" -v k="$2" -v b="$3" 'BEGIN { exit !(a != "" && b != "" && a + 0 >= k * b) }'; }

# under the sanitizers (PK_SAN) perfkit's own code is what is checked: the
# pinned geometry is enough
geos="pinned host"
[ -n "${PK_SAN:-}" ] && geos=pinned
# the lessons' simulations two at a time, each writing its exit status
# (the simulated counts do not depend on the load; on two cores this takes
# about half the time of one after the other)
two() { while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done; }
sims=()
for geo in $geos; do
	g=; [ $geo = pinned ] && g=$PIN
	# the host's geometry: its path runs, its ratios are not checked (they
	# would depend on this machine's caches)
	mms="naive ikj blocked"; [ $geo = host ] && mms=naive
	for v in $mms; do
		two
		# shellcheck disable=SC2086
		{ "$PERFKIT" stat --simulate $g -x';' -o "$T/mm-$v-$geo.csv" -- "$MM" $v 1 >/dev/null 2>"$T/mm-$v-$geo.err"
		  echo $? >"$T/mm-$v-$geo.rc"; } &
		sims+=($!)
	done
	for v in random sorted; do
		two
		# shellcheck disable=SC2086
		{ "$PERFKIT" stat --simulate $g -x';' -o "$T/br-$v-$geo.csv" -- "$BR" $v 65536 20 >/dev/null 2>&1
		  echo $? >"$T/br-$v-$geo.rc"; } &
		sims+=($!)
	done
done
# the other simulations whose output is read below, with these (no
# calibration file yet, as the std and json runs need)
two
{ "$PERFKIT" stat --simulate -r 2 $PIN -- "$BR" sorted 4096 5 >/dev/null 2>"$T/std.err"; echo $? >"$T/std.rc"; } &
sims+=($!)
two
"$PERFKIT" stat --simulate $PIN -- "$MM" naive 1 >/dev/null 2>"$T/mmstd.err" &
sims+=($!)
two
{ "$PERFKIT" stat --simulate $PIN -- "$PK_BUILD/examples/falseshare" shared 200000 >/dev/null 2>"$T/fs.err"; echo $? >"$T/fs.rc"; } &
sims+=($!)
two
"$PERFKIT" stat --simulate -j $PIN -- "$BR" sorted 4096 5 >/dev/null 2>"$T/j.err" &
sims+=($!)
wait "${sims[@]}"
for geo in $geos; do
	mms="naive ikj blocked"; [ $geo = host ] && mms=naive
	for v in $mms; do
		expect "matmul $v ($geo geometry): stat --simulate exits 0" test "$(cat "$T/mm-$v-$geo.rc" 2>/dev/null)" = 0
	done
	n=$(pct "$T/mm-naive-$geo.csv" L1-dcache-load-misses)
	if [ $geo = host ]; then
		expect "matmul naive (host geometry): an L1 miss % ($n)" test -n "$n"
	else
		i=$(pct "$T/mm-ikj-$geo.csv" L1-dcache-load-misses)
		b=$(pct "$T/mm-blocked-$geo.csv" L1-dcache-load-misses)
		diag "$geo: L1-dcache load-miss %: naive $n ikj $i blocked $b"
		expect "matmul ($geo): naive's L1 miss % >= 3x ikj's" ge "$n" 3 "$i"
		expect "matmul ($geo): naive's L1 miss % >= 3x blocked's" ge "$n" 3 "$b"
	fi

	for v in random sorted; do
		expect "branches $v ($geo geometry): stat --simulate exits 0" test "$(cat "$T/br-$v-$geo.rc" 2>/dev/null)" = 0
	done
	r=$(pct "$T/br-random-$geo.csv" branch-misses)
	s=$(pct "$T/br-sorted-$geo.csv" branch-misses)
	diag "$geo: branch-miss %: random $r sorted $s"
	expect "branches ($geo): random's branch-miss % >= 5x sorted's" ge "$r" 5 "$s"
done

# the CSV: every simulated/estimated record says so, native ones are perf's
f=$T/br-sorted-pinned.csv
for e in instructions branches branch-misses L1-dcache-loads L1-dcache-load-misses \
	L1-icache-load-misses LLC-loads LLC-load-misses dTLB-load-misses; do
	expect "CSV: $e has a simulated record" grep -q "^[0-9]*;;$e;.*;simulated\$" "$f"
done
expect "CSV: estimated cycles from the native time" grep -q '^[0-9]*;;cycles-native-time;.*;insn per cycle;estimated$' "$f"
expect "CSV: estimated cycles from the model" grep -q '^[0-9]*;;cycles-model;.*;insn per cycle;estimated$' "$f"
expect "CSV: the model's breakdown (compute)" grep -q '^[0-9]*;;model-cycles:compute;.*;estimated$' "$f"
expect "CSV: task-clock is the native record, unmarked" grep -q '^[0-9.]*;msec;task-clock;[0-9]*;[0-9.]*;[0-9.]*;CPUs utilized$' "$f"
sum=$(awk -F';' '$3 ~ /^model-cycles:/ { s += $1 } END { print s }' "$f")
tot=$(awk -F';' '$3 == "cycles-model" { print $1 }' "$f")
expect "CSV: the breakdown adds up to the model's cycles ($sum vs $tot)" \
	awk -v a="$sum" -v b="$tot" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 8) }'

# the standard layout, -r 2, on a small run
expect "std: exits 0" test "$(cat "$T/std.rc" 2>/dev/null)" = 0
expect "std: perf's header with the runs" grep -q "Performance counter stats for '.*branches sorted 4096 5' (2 runs):" "$T/std.err"
for e in instructions branches branch-misses L1-dcache-loads L1-dcache-load-misses \
	L1-icache-load-misses LLC-loads LLC-load-misses dTLB-load-misses; do
	expect "std: the $e line is marked (simulated)" grep -qE "^ +[0-9]+ +$e +.*\(simulated(, exact)?\)" "$T/std.err"
done
expect "std: instructions are marked exact" grep -qE "^ +[0-9]+ +instructions .*insn per cycle \(est\.\).*\(simulated, exact\)" "$T/std.err"
expect "std: cycles from the native time, estimated, with the frequency's source and the spread" \
	grep -qE "cycles \(native time\) .*\( \+- *[0-9.]+% \).*\(estimated: task-clock .* MHz, " "$T/std.err"
expect "std: cycles from the model, estimated, defaults said" grep -qE "cycles \(model\) .*\(estimated: CPI model, built-in defaults\)" "$T/std.err"
expect "std: no calibration is said, and where it was looked for" grep -q "no calibration in $XDG_CACHE_HOME/perfkit/cpimodel" "$T/std.err"
expect "std: where the cycles go" grep -q "Where the cycles go" "$T/std.err"
expect "std: ... compute and mispredicts" sh -c 'grep -qE "^ +compute +[0-9]+" "$0" && grep -qE "^ +mispredicts +[0-9]+" "$0"' "$T/std.err"
expect "std: a reading with a reason" grep -qE "^   (memory-bound|branchy|compute-bound|mixed): [0-9]+% of the model's cycles" "$T/std.err"
if grep -q '<not supported>.*hardware events not supported here' "$T/std.err"; then
	ok "std: no PMU: said once, the simulated lines stand in"
elif grep -q '\[counted: [0-9]*\]' "$T/std.err"; then
	ok "std: a PMU: the counted values beside the simulated ones"
else
	not_ok "std: neither the no-PMU line nor counted values"
fi

# the reading: one verdict (the model's); the IPC words only where the two
# estimates agree, else the disagreement said; the CPU-use line kept
rd() { sed -n '/^ Reading:/,$p' "$1"; }
rd "$T/std.err" >"$T/std.rd"
n=$(grep -cE "^   (memory-bound|branchy|compute-bound|mixed): " "$T/std.rd")
expect "reading: one verdict ($n)" test "$n" = 1
expect_fail "reading: no IPC cause beside the model's verdict (no 'neither clearly memory- nor compute-bound')" \
	grep -qE "likely memory-bound|neither clearly memory- nor compute-bound" "$T/std.rd"
expect "reading: the IPC estimates agree, or their disagreement is said" \
	grep -qE "^   IPC [0-9.]+ \(estimated from the native time; the model's [0-9.]+ agrees\)|^   IPC estimates disagree: .* the verdict above is the model's" "$T/std.rd"
expect "reading: CPUs utilized kept" grep -qE "^   [0-9.]+ CPUs utilized" "$T/std.rd"
expect_fail "reading: a single-threaded command is not called multi-threaded" grep -q "multi-threaded" "$T/std.rd"

# dTLB-load-misses are the L1 dTLB's misses (perf's meaning), the walks on
# their own line: naive's column walk of B misses the L1 dTLB often
f=$T/mm-naive-pinned.csv
tl=$(pct "$f" dTLB-load-misses) tw=$(awk -F';' '$3 == "dTLB-walks" && $NF == "simulated" { print $1 }' "$f")
diag "naive: dTLB-load-misses $tl % of loads, dTLB-walks $tw"
expect "naive: dTLB-load-misses (L1 dTLB) at least 1% of loads ($tl)" awk -v a="$tl" 'BEGIN { exit !(a != "" && a + 0 >= 1) }'
expect "naive: page walks on their own simulated line" test -n "$tw"
expect "std: dTLB-walks line marked (simulated)" grep -qE "^ +[0-9]+ +dTLB-walks +#.*of all dTLB-load-misses +\(simulated\)" "$T/mmstd.err"

# a multi-threaded command: the reading says sharing is not simulated
expect "falseshare: stat --simulate exits 0" test "$(cat "$T/fs.rc" 2>/dev/null)" = 0
expect "falseshare: the reading says threads run one at a time, no coherence traffic" \
	grep -qE "^   multi-threaded \(.*\): the simulation runs the threads one at a time .*no coherence traffic" "$T/fs.err"

# JSON
expect "json: a simulated instructions object" grep -q '"event" : "instructions".*"source" : "simulated"' "$T/j.err"
expect "json: estimated cycles with the method" grep -q '"event" : "cycles-native-time".*"source" : "estimated", "method" : "task-clock x' "$T/j.err"
if have python3; then
	expect "json: every line parses" python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1]) if l.strip()]' "$T/j.err"
fi

# a calibration file is used; a broken one is refused with its line
mkdir -p "$XDG_CACHE_HOME/perfkit"
printf 'version 1\nbase_cpi 0.5\nl1 4\nl2 20\nll 100\ntlb 5\nwalk 25\nbmiss 12\ndate 2026-01-02T03:04:05Z\n' >"$XDG_CACHE_HOME/perfkit/cpimodel"
"$PERFKIT" stat --simulate $PIN -- "$BR" sorted 4096 5 >/dev/null 2>"$T/cal.err"
expect "calibrated: the model says so" grep -q "(estimated: CPI model, calibrated)" "$T/cal.err"
expect "calibrated: its base CPI is the file's" grep -qE "^ +compute +[0-9]+ +[0-9.]+% +0\.500 cycles x" "$T/cal.err"
printf 'version 1\nbase_cpi -3\n' >"$XDG_CACHE_HOME/perfkit/cpimodel"
"$PERFKIT" stat --simulate $PIN -- "$BR" sorted 4096 5 >/dev/null 2>"$T/bad.err"
expect "broken calibration: still runs" test $? = 0
expect "broken calibration: FILE:LINE said, defaults used" grep -q "calibration not used: .*cpimodel:2: 'base_cpi' expects a non-negative number" "$T/bad.err"
rm -f "$XDG_CACHE_HOME/perfkit/cpimodel"

# the exit status is CMD's
"$PERFKIT" stat --simulate -- sh -c 'exit 3' >/dev/null 2>"$T/x3.err"
expect "exit status of CMD passed through (3)" test $? = 3
expect "... and the counts still printed" grep -q "(simulated, exact)" "$T/x3.err"

# bad input: one line each
"$PERFKIT" stat --simulate -- "$T/no-such-program" >/dev/null 2>"$T/e1"
rc=$?
expect "a program that cannot be found: exit 127" test $rc = 127
expect "... one line naming it" sh -c '[ $(wc -l <"$0") = 1 ] && grep -q "cannot run .*no-such-program.*No such file" "$0"' "$T/e1"
printf 'not a program\n' >"$T/notexec"
chmod -x "$T/notexec"
"$PERFKIT" stat --simulate -- "$T/notexec" >/dev/null 2>"$T/e2"
rc=$?
expect "a file without execute permission: exit 126 or 127 ($rc)" test $rc = 126 -o $rc = 127
expect "... one line" sh -c '[ $(wc -l <"$0") = 1 ] && grep -q "^perfkit stat: cannot run" "$0"' "$T/e2"
"$PERFKIT" stat --simulate -- sh -c 'kill -SEGV $$' >/dev/null 2>"$T/e3"
rc=$?
expect "a program that crashes: exit 139 ($rc)" test $rc = 139
expect "... one line naming the signal" sh -c '[ $(wc -l <"$0") = 1 ] && grep -q "killed by signal 11 (Segmentation fault)" "$0"' "$T/e3"
mkdir "$T/empty"
PERFKIT_VALGRIND_LIB=$T/empty "$PERFKIT" stat --simulate -- true >/dev/null 2>"$T/e4"
expect "no Valgrind tool (PERFKIT_VALGRIND_LIB elsewhere): exit 1" test $? = 1
expect "... one line naming the tool and the folder" sh -c '[ $(wc -l <"$0") = 1 ] && grep -q "^perfkit stat: --simulate: .*pkcache.*empty" "$0"' "$T/e4"
cp "$PERFKIT" "$T/perfkit-alone"
"$T/perfkit-alone" stat --simulate -- true >/dev/null 2>"$T/e5"
expect "a copied binary without vgtool/ beside it: exit 1" test $? = 1
expect "... one line saying what to copy" sh -c '[ $(wc -l <"$0") = 1 ] && grep -q "copy build/vgtool/" "$0"' "$T/e5"
"$PERFKIT" stat --simulate -e cycles -- true >/dev/null 2>"$T/e6"
expect "--simulate with -e: usage error 2" test $? = 2
"$PERFKIT" stat --D1=32768,8,64 -- true >/dev/null 2>"$T/e7"
expect "--D1 without --simulate: usage error 2" test $? = 2
"$PERFKIT" stat --simulate --D1=3000,8,64 -- true >/dev/null 2>"$T/e8"
expect "--D1 that cannot be simulated: usage error 2" test $? = 2
expect "... one line" sh -c '[ $(wc -l <"$0") = 1 ]' "$T/e8"

done_testing
