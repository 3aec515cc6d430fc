#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit profile: a process spinning in main() for 1 s sampled at 997 Hz:
# main dominates the folded stacks, the sample count matches the CPU time
# it got x 997 within 10 % (= duration x frequency on an idle machine; on a
# loaded one the spinner gets less than its wall time), user-mode samples
# carry no kernel part and no error, and `perfkit flamegraph` draws it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require

SPIN=$PK_BUILD/tests/workloads/spin
F=997
"$SPIN" 1000 >"$T/cpu" &
spin=$!
wait_until 30 catches $spin 10	# SIGUSR1 would kill it before its handler
if tracer_start "$T/out" "$T/err" "$PERFKIT" profile -F $F -f -p $spin; then
	kill -USR1 $spin
	for i in $(seq 100); do [ -s "$T/cpu" ] && break; sleep 0.05; done
	tracer_stop
	expect 'Ctrl-C ends it with status 0' test $? = 0
	kill $spin; wait $spin 2>/dev/null
	sort -k2 -n -r "$T/out" | head -5 | sed 's/^/# /'
	sed 's/^/# /' "$T/err"
	total=$(awk '{ n += $NF } END { print n + 0 }' "$T/out")
	inmain=$(awk '/(^|;)main(;| )/ { n += $NF } END { print n + 0 }' "$T/out")
	cpu_ns=$(cat "$T/cpu")
	expected=$(awk -v c="$cpu_ns" -v f=$F 'BEGIN { printf "%d", c / 1e9 * f + 0.5 }')
	diag "samples: $total (main: $inmain); expected $expected = $cpu_ns ns of CPU x $F Hz; duration x frequency = $F"
	expect 'every line is folded: comm;frames COUNT' \
		test "$(grep -cvE '^[^ ;]+(;[^;]+)* [0-9]+$' "$T/out")" = 0
	expect 'stacks start with the comm "spin"' test "$(grep -cv '^spin;' "$T/out")" = 0
	expect 'main dominates (>= 90 % of the samples)' test $((inmain * 10)) -ge $((total * 9))
	expect "sample count within 10 % of CPU time x $F Hz" \
		awk -v n="$total" -v e="$expected" 'BEGIN { exit !(e > 0 && n >= 0.9 * e && n <= 1.1 * e) }'
	expect 'user-mode samples: no kernel part, no missing-stack marker' \
		test "$(grep -c '\[missing' "$T/out")" = 0
	expect 'summary on stderr counts the samples' grep -Eq "^perfkit profile: $total samples on [0-9]+ CPUs$" "$T/err"
	"$PERFKIT" flamegraph "$T/out" >"$T/fg.svg" 2>"$T/fg.err"
	expect 'perfkit flamegraph reads the folded output' test $? = 0
	expect '... and draws main' grep -q '>main' "$T/fg.svg"
else
	not_ok 'profile starts'
	kill $spin
fi

# kernel frames: as bcc names them; "_[k]" after each with -a (bcc's
# --annotations), folded or not
dd if=/dev/zero of=/dev/null bs=4k count=100000000 2>/dev/null &
dd=$!
"$PERFKIT" profile -F 199 -f -p $dd 1 >"$T/kn" 2>/dev/null
"$PERFKIT" profile -F 199 -f -a -p $dd 1 >"$T/ka" 2>/dev/null
"$PERFKIT" profile -F 199 -a -p $dd 1 >"$T/kal" 2>/dev/null
kill $dd; wait $dd 2>/dev/null
expect 'dd in the kernel: kernel frames (a read or write function) in the folded stacks' \
	grep -Eq ';[a-z_0-9.]*(read|write)[a-z_0-9.]*(;| )' "$T/kn"
expect '... none ending in _[k] without -a (bcc)' sh -c "! grep -q '_\[k\]' '$T/kn'"
expect '-a: the kernel frames end in _[k]' grep -Eq ';[a-z_0-9.]*(read|write)[a-z_0-9.]*_\[k\](;| )' "$T/ka"
expect '-a: the multi-line layout too' grep -Eq '^    [a-z_0-9.]*(read|write)[a-z_0-9.]*_\[k\]$' "$T/kal"

"$PERFKIT" profile -U -K 1 >/dev/null 2>&1
expect '-U with -K: usage error (exit 2)' test $? = 2
done_testing
