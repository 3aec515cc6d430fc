#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit script against perf script on the same perf.data (perf record with
# and without -g): the same number of samples, the same header lines
# (comm, tid, time, period, event — byte for byte; also with a fixed
# period, -c, where the period is in the attr and not in the samples), the same leaf symbols,
# and the layout stackcollapse-perf.pl reads (tab-indented frames, a blank
# line after each sample with callchains).
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"

if ! have perf; then skip "perf (the oracle) is not installed"; done_testing; exit; fi
if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi

W=$PK_BUILD/tests/workloads/burn2to1
if [ ! -x "$W" ]; then
	W=$T/burn2to1
	cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$W" "$TOP/tests/workloads/burn2to1.c"
fi

# leaf symbol per sample: the symbol (without +off) of the first frame
leaves_cc() { awk '/^[^\t]/ { want = 1; next } want && /^\t/ { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); print s; want = 0 }' "$1"; }
leaves_flat() { awk '{ s = $7; sub(/\+0x[0-9a-f]+$/, "", s); print s }' "$1"; }
# agreement of two leaf lists: "same total both_in_W"
agree() { paste -d' ' "$1" "$2" | awk '{ n++; if ($1 == $2) s++ } END { print s + 0, n + 0 }'; }

for g in "-g" "" "-c 100000"; do
	perf record $g -o "$T/p.data" -- "$W" 300 >/dev/null 2>&1
	perf script -i "$T/p.data" >"$T/perf.txt" 2>/dev/null
	"$PERFKIT" script -i "$T/p.data" >"$T/pk.txt" 2>"$T/pk.err"
	expect "script ${g:-(no -g)}: exit 0, nothing on stderr" test $? = 0 -a ! -s "$T/pk.err"
	if [ "$g" = -g ]; then
		grep -v '^[[:space:]]' "$T/perf.txt" | grep -v '^$' >"$T/perf.hdr"
		grep -v '^[[:space:]]' "$T/pk.txt" | grep -v '^$' >"$T/pk.hdr"
		leaves_cc "$T/perf.txt" >"$T/perf.leaf"
		leaves_cc "$T/pk.txt" >"$T/pk.leaf"
		expect "-g: a blank line after each sample" \
			test "$(grep -c '^$' "$T/pk.txt")" = "$(wc -l <"$T/pk.hdr")"
		expect "-g: frames are '\\t<hex ip> <sym> (<dso>)'" \
			test -z "$(grep '^[[:space:]]' "$T/pk.txt" | grep -Ev $'^\t *[0-9a-f]+ [^ ]+ \\(.+\\)$' | head -1)"
	else
		cut -c1-61 "$T/perf.txt" >"$T/perf.hdr"     # up to and including the ip
		cut -c1-61 "$T/pk.txt" >"$T/pk.hdr"
		leaves_flat "$T/perf.txt" >"$T/perf.leaf"
		leaves_flat "$T/pk.txt" >"$T/pk.leaf"
	fi
	np=$(wc -l <"$T/perf.hdr") nk=$(wc -l <"$T/pk.hdr")
	expect "script ${g:-(no -g)}: same number of samples ($np vs $nk)" test "$np" = "$nk" -a "$np" -gt 50
	same_file "script ${g:-(no -g)}: header lines identical to perf script" "$T/perf.hdr" "$T/pk.hdr"
	read -r same total < <(agree "$T/perf.leaf" "$T/pk.leaf")
	diag "leaf symbols agree on $same of $total samples"
	# the workload's own functions must agree every time; other DSOs may lack
	# debug symbols here
	bad=$(paste -d' ' "$T/perf.leaf" "$T/pk.leaf" | awk '$1 ~ /^burn_(one|two)$/ && $1 != $2' | head -3)
	expect "script ${g:-(no -g)}: every burn_one/burn_two leaf matches${bad:+ ($bad)}" test -z "$bad"
	expect "script ${g:-(no -g)}: >= 95 % of all leaves match ($same/$total)" test $((same * 100)) -ge $((total * 95))
done
done_testing
