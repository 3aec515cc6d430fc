#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit profile --continuous: 12 s at 49 Hz with 1 s intervals while a
# loop execs short napper processes (each spins 20 ms in spin_here and
# exits): the files are rotated to --max-files, each decodes with a real
# pprof reader (tests/pprof, npm's pprof-format) with its labels host, pid
# and comm, napper's frames are named although every napper has exited,
# its mapping carries the binary's build-id, Ctrl-C ends it with status 0,
# and its memory stays flat (no growth interval after interval; one step
# of a one-time symbol load allowed).  bench/profile-continuous.sh runs the same
# for 5 minutes and measures its CPU.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require
R=$TOP/tests/pprof
NAP=$PK_BUILD/tests/workloads/napper
D=$T/prof

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

if tracer_start "$T/out" "$T/err" "$PERFKIT" profile --continuous -F 49 --interval 1 \
		--output-dir "$D" --max-files 4; then
	( while :; do "$NAP" 0 20 1 >/dev/null; sleep 0.01; done ) &
	loop=$!
	r=()
	for i in $(seq 12); do sleep 1; r+=("$(rss "$TRACER_PID")"); done
	kill $loop; wait $loop 2>/dev/null
	tracer_stop
	expect 'Ctrl-C ends it with status 0' test $? = 0
	diag "VmRSS (kB) each second: ${r[*]}"
	diag "$(cat "$T/err")"
	# one-time loads (kallsyms, a library's symbols, on the first sample
	# that needs them) step the size up at any second (seen at 8-12 s and
	# at 19 s); what must not happen is growth interval after interval:
	# over the six 1-second intervals after the first half, the growth
	# less the largest single interval's stays within 1/8 + 2 MiB, and the
	# size never passes the symbol budget (64 MiB) with room for the rest
	maxstep=0 peak=0
	for i in 6 7 8 9 10 11; do
		d=$((r[i] - r[i - 1]))
		[ "$d" -gt "$maxstep" ] && maxstep=$d
	done
	for v in "${r[@]}"; do [ "$v" -gt "$peak" ] && peak=$v; done
	a=${r[5]} b=${r[11]}
	expect "memory flat: VmRSS $a kB at 6 s, $b kB at 12 s, of which one step of $maxstep kB" \
		test $((b - a - maxstep)) -le $((a / 8 + 2048))
	expect "memory bounded: peak VmRSS $peak kB under 96 MB" test "$peak" -le $((96 * 1024))
	nf=$(ls "$D" | grep -c '^profile-.*\.pb\.gz$')
	expect "files rotated: the newest 4 kept ($nf)" test "$nf" = 4
	expect 'the summary counts the files written' grep -Eq 'perfkit profile: (9|1[0-9]) files written' "$T/err"
	if have node && [ -f "$R/node_modules/pprof-format/package.json" ]; then
		ok_all=1
		: >"$T/all"
		for f in "$D"/profile-*.pb.gz; do
			(cd "$R" && node labels.js "$f") >>"$T/all" 2>"$T/lerr" || { ok_all=0; diag "$(cat "$T/lerr")"; }
		done
		expect 'every file decodes with pprof-format' test $ok_all = 1
		expect 'sample types samples/count and cpu-clock/nanoseconds' \
			sh -c "grep -q '^type	samples	count' '$T/all' && grep -q '^type	cpu-clock	nanoseconds' '$T/all'"
		host=$(hostname)
		grep '	napper	' "$T/all" | head -3 | sed 's/^/# /'
		n=$(awk -F'\t' -v h="$host" '$1 == "sample" && $2 == h && $3 ~ /^[0-9]+$/ && $4 == "napper" && $6 ~ /(^|;)spin_here(;|$)/' "$T/all" | wc -l)
		expect "samples labelled host=$host, pid, comm=napper named spin_here after exit ($n)" test "$n" -gt 0
		bid=$(readelf -n "$NAP" 2>/dev/null | awk '/Build ID/ { print $3 }')
		if [ -n "$bid" ]; then
			expect "napper's mapping carries its build-id $bid" \
				grep -q "^mapping	$NAP	$bid\$" "$T/all"
		else
			skip 'readelf shows no build-id for napper'
		fi
	else
		skip "node or tests/pprof/node_modules missing (scripts/install-deps)"
	fi
else
	not_ok 'profile --continuous starts'
fi
"$PERFKIT" profile --continuous >/dev/null 2>"$T/e1"
expect '--continuous without --output-dir: usage error' test $? = 2
"$PERFKIT" profile --interval 5 >/dev/null 2>&1
expect '--interval without --continuous: usage error' test $? = 2
done_testing
