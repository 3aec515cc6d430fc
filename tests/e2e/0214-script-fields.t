#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit script -F: perf script's field lists (comm, tid, pid, time, cpu,
# event, ip, sym, symoff, dso, period, addr, trace; a list replacing the
# defaults, +field/-field editing them, a TYPE: prefix limiting them) print
# the bytes perf script (6.1) prints for the same file and lists: on a
# recording with call chains, one without, one with a tracepoint beside
# cpu-clock; a field the samples lack is refused as perf refuses it.
# --ns, --reltime, --deltatime, --max-stack, --show-task-events and
# --show-mmap-events likewise.
# check: fresh-recording (perf compared on recordings made here: scripts/e2e-run)
. "$(dirname "$0")/lib.sh"

if ! have perf; then skip "perf (the oracle) is not installed"; done_testing; exit; fi
if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/burn2to1

# user-space samples (perf script reads no kallsyms: 0.05 s a run, not 0.4)
perf record -q -e cpu-clock:u -g -o "$T/cg.data" -- "$W" 100 >/dev/null 2>&1
perf record -q -e cpu-clock:u -o "$T/flat.data" -- "$W" 100 >/dev/null 2>&1
"$PERFKIT" record -e cpu-clock:u -g -o "$T/pk.data" -- "$W" 100 >/dev/null 2>&1
perf record -q -e cpu-clock -e sched:sched_process_exit -g -o "$T/tp.data" -- sh -c "$W 30; $W 30" >/dev/null 2>&1

lists='comm,tid,pid,time,event,ip,sym,dso,symoff,period comm,tid pid,tid pid tid time
event ip ip,sym ip,sym,symoff ip,dso sym period comm,event,period +period -time
-sym,-symoff -dso -ip comm,ip comm,tid,ip,sym sw:comm,tid hw:comm comm,,tid
+pid trace:comm,tid trace:+period trace -trace comm,tid,event,trace'
pklists='comm,tid,pid,time,event,ip,sym,dso,symoff,period comm,tid ip,sym ip,dso
+period -time -sym,-symoff comm,ip +pid'
tplists='comm,tid,pid,time,event,ip,sym,dso,symoff,period trace:comm,tid trace:+period
trace -trace comm,tid,event,trace +pid sw:-ip'
for d in cg flat pk tp; do
	if ! [ -s "$T/$d.data" ]; then skip "$d.data: not recorded (tracepoints not available?)"; continue; fi
	fails=0 n=0
	l=$lists; [ $d = tp ] && l=$tplists; [ $d = pk ] && l=$pklists
	for F in $l; do
		n=$((n + 1))
		perf script -i "$T/$d.data" -F "$F" >"$T/perf.out" 2>/dev/null &   # the two at once
		pp=$!
		"$PERFKIT" script -i "$T/$d.data" -F "$F" >"$T/pk.out" 2>"$T/pk.err"
		wait $pp
		if ! cmp -s "$T/perf.out" "$T/pk.out" || { ! [ -s "$T/perf.out" ] && [ "$F" != trace ]; }; then
			fails=$((fails + 1))
			diag "$d -F $F:"
			diff "$T/perf.out" "$T/pk.out" | head -4 | while IFS= read -r l; do diag "$l"; done
			head -2 "$T/pk.err" | while IFS= read -r l; do diag "$l"; done
		fi
	done
	expect "$d.data: -F prints perf script's bytes for $n field lists" test "$fails" = 0
done

# --ns: the time column with 9 decimals, default fields and a list, on a
# file with call chains and one without
for d in cg flat; do
	perf script -i "$T/$d.data" --ns >"$T/perf.out" 2>/dev/null
	"$PERFKIT" script -i "$T/$d.data" --ns >"$T/pk.out" 2>/dev/null
	perf script -i "$T/$d.data" --ns -F comm,tid,time,ip >"$T/perf2.out" 2>/dev/null
	"$PERFKIT" script -i "$T/$d.data" --ns -F comm,tid,time,ip >"$T/pk2.out" 2>/dev/null
	expect "$d.data --ns: perf script --ns's bytes (default fields and -F comm,tid,time,ip)" \
		sh -c 'cmp -s "$1" "$2" && cmp -s "$3" "$4" && [ -s "$2" ]' - \
		"$T/perf.out" "$T/pk.out" "$T/perf2.out" "$T/pk2.out"
done

# --reltime (since the first sample shown) and --deltatime (since the one
# before), with and without --ns
for d in cg flat; do
	n=0 bad=
	for o in --reltime --deltatime "--reltime --ns" "--deltatime --ns -F comm,tid,time"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		cmp -s <(perf script -i "$T/$d.data" $o 2>/dev/null) <("$PERFKIT" script -i "$T/$d.data" $o 2>/dev/null) ||
			bad="$bad [$o]"
	done
	expect "$d.data --reltime/--deltatime: perf script's bytes ($n ways${bad:+; differ:$bad})" test -z "$bad"
done
for m in 0 2; do
	expect "cg.data --max-stack $m: perf script's bytes (0: the samples' lines, no frame)" \
		cmp -s <(perf script -i "$T/cg.data" --max-stack $m 2>/dev/null) <("$PERFKIT" script -i "$T/cg.data" --max-stack $m 2>/dev/null)
done
"$PERFKIT" script -i "$T/cg.data" --reltime --deltatime >/dev/null 2>"$T/err"
expect '--reltime with --deltatime: refused as perf (2)' sh -c "[ $? -eq 2 ] && grep -q 'cannot be used together' '$T/err'"

# a recording with build-ids in its MMAP2 records ("<BUILD-ID>" printed)
perf record -q -e cpu-clock:u --buildid-mmap -o "$T/task4.data" -- sh -c "$W 20" >/dev/null 2>&1
# --show-task-events: the COMM, FORK and EXIT records among the samples in
# time order, each headed by the fields of the event its sample_id names
# (a trailer of zeros, perf's synthesized records: the first event's),
# of the filters only -C applying: perf script's bytes, on a process that
# forks and execs, with and without call chains, two events, a process
# attached to and one with build-ids in its maps
perf record -q -e cpu-clock:u -g -o "$T/task.data" -- sh -c "$W 30 & $W 30; wait; (true)" >/dev/null 2>&1
perf record -q -e cpu-clock:u,task-clock:u -o "$T/task2.data" -- sh -c "$W 20; (sleep 0.01)" >/dev/null 2>&1
# attached to a running process (-p): perf synthesizes its task and map
# records first, with a sample_id of zeros (not -a: the whole machine's
# tasks would include the other tests' hostile names, which perfkit prints
# escaped)
"$W" 300 >/dev/null 2>&1 &
wp=$!
perf record -q -e cpu-clock:u -p $wp -o "$T/task3.data" -- sleep 0.2 >/dev/null 2>&1
kill $wp 2>/dev/null
wait $wp 2>/dev/null
# side_same FILE SHOW OPTS...: perf script and perfkit script of FILE with
# SHOW and each of OPTS (split by the shell) compared: how many in $n, the
# ones that differ in $bad
side_same() {
	local f=$1 show=$2 o
	shift 2
	n=0 bad=
	for o in "$@"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		cmp -s <(perf script -i "$f" $show $o 2>/dev/null) <("$PERFKIT" script -i "$f" $show $o 2>/dev/null) ||
			bad="$bad [$o]"
	done
}
for d in task task2 task3 task4; do
	if ! [ -s "$T/$d.data" ]; then skip "$d.data: not recorded (--buildid-mmap needs a newer perf)"; continue; fi
	side_same "$T/$d.data" --show-task-events "" --ns "-F comm,pid,tid,cpu,time" "-F ip" "-F period" --reltime \
		--deltatime -G "-C 0" "--pid 1" "--time 0,1"
	tasks=$("$PERFKIT" script -i "$T/$d.data" --show-task-events 2>/dev/null | grep -c 'PERF_RECORD_\(COMM\|FORK\|EXIT\)')
	expect "$d.data --show-task-events: perf script's bytes ($n ways, $tasks task records${bad:+; differ:$bad})" \
		sh -c "[ -z '$bad' ] && [ $tasks -ge 1 ]"
	# --show-mmap-events: the MMAP and MMAP2 records likewise (the
	# kernel's "PERF_RECORD_MMAP -1/0: […]: x [kernel.kallsyms]_text",
	# a file's "[START(LEN) @ PGOFF MAJ:MIN INO GEN]: r-xp FILE")
	side_same "$T/$d.data" --show-mmap-events "" --show-task-events "-F comm,pid,tid,cpu,time" "-F ip" "-C 0"
	maps=$("$PERFKIT" script -i "$T/$d.data" --show-mmap-events 2>/dev/null | grep -c 'PERF_RECORD_MMAP2\? ')
	expect "$d.data --show-mmap-events: perf script's bytes ($n ways, $maps map records${bad:+; differ:$bad})" \
		sh -c "[ -z '$bad' ] && [ $maps -ge 1 ]"
done

# refused as perf refuses them
"$PERFKIT" script -i "$T/cg.data" -F comm,cpu >/dev/null 2>"$T/err"
expect 'cpu on a file without PERF_SAMPLE_CPU: refused (1)' test $? = 1
expect '... saying why' grep -q "do not have the CPU attribute set" "$T/err"
"$PERFKIT" script -i "$T/cg.data" -F +addr >/dev/null 2>"$T/err"
expect '+addr without PERF_SAMPLE_ADDR: one line naming the field' grep -q "cannot print field 'addr'" "$T/err"
"$PERFKIT" script -i "$T/cg.data" -F comm,+tid >/dev/null 2>"$T/err"
expect 'mixing a list with +field: usage error (2)' test $? = 2
"$PERFKIT" script -i "$T/cg.data" -F comm,bogus >/dev/null 2>"$T/err"
expect 'unknown field: usage error (2)' test $? = 2
expect '... naming it' grep -q "unknown field 'bogus'" "$T/err"
"$PERFKIT" script -i "$T/cg.data" -F ip,symoff >/dev/null 2>"$T/err"
expect 'symoff without sym: refused' test $? = 1
# -F trace of a software event: nothing printed, as perf, and one warning
# naming the event (perf: "'trace' not valid for software events. Ignoring.")
"$PERFKIT" script -i "$T/cg.data" -F trace >"$T/out" 2>"$T/err"
expect '-F trace on cpu-clock: exit 0, no output' test $? = 0 -a ! -s "$T/out"
expect "... a warning naming 'trace' and the event" grep -q "trace.*not valid for event 'cpu-clock:u'" "$T/err"
# --header: the file's header lines first, as perf script --header; -f and
# --demangle accepted (perf's options)
# (perf's bpf_prog_info/btf lines, of BPF programs loaded while it
# recorded, are not printed: README, test 0215)
perf script --header -i "$T/cg.data" 2>/dev/null | grep -Ev '^# (bpf_prog_info|btf info)' | tr -s ' ' >"$T/perf.hdr"
"$PERFKIT" script --header -f --demangle -i "$T/cg.data" 2>/dev/null | tr -s ' ' >"$T/pk.hdr"
expect "--header: the header lines come first" grep -q '^# captured on' "$T/pk.hdr"
same_file "--header -f --demangle: perf script --header's text" "$T/perf.hdr" "$T/pk.hdr"
perf script --header-only -i "$T/cg.data" 2>/dev/null | grep -Ev '^# (bpf_prog_info|btf info)' >"$T/perf.hdro"
"$PERFKIT" script --header-only -i "$T/cg.data" >"$T/pk.hdro" 2>/dev/null
same_file "--header-only: perf script --header-only's bytes (the header, no sample)" "$T/perf.hdro" "$T/pk.hdro"

# srcline: each frame's source line on a line of its own ("  file.c:LINE",
# else "  DSO[ADDR]"; perf script's map__fprintf_srcline; ":0" for a unit
# without a line of the address, nothing for "??:0").  binutils' addr2line
# names some DWARF 5 rows' files otherwise than libdw (libc's
# __libc_start_call_main: libc-start.c:74 where the row says
# libc_start_call_main.h:74): a library's line of the same number passes;
# the workload's own lines, byte for byte
srcline_same() {   # PERF PK
	[ "$(wc -l <"$1")" = "$(wc -l <"$2")" ] && [ -s "$1" ] &&
		[ "$(grep -c '^  burn2to1\.c:' "$1")" = "$(grep -c '^  burn2to1\.c:' "$2")" ] &&
		awk 'function num(x) { sub(/.*:/, "", x); return x }
			NR == FNR { a[FNR] = $0; next }
			{ p = a[FNR] }
			p == $0 { next }
			p ~ /^  [^ ]+:[0-9]+$/ && $0 ~ /^  [^ ]+:[0-9]+$/ && p !~ /burn2to1/ && $0 !~ /burn2to1/ &&
				num(p) == num($0) { next }
			{ bad++ } END { exit bad > 0 }' "$1" "$2"
}
for d in cg flat pk tp; do
	[ -s "$T/$d.data" ] || continue
	bad=
	for F in comm,tid,ip,sym,srcline comm,ip,sym,dso,srcline +srcline ip,srcline; do
		# a tracepoint's default fields have no ip: refused, below
		[ $d = tp ] && [ "$F" = +srcline ] && continue
		perf script -i "$T/$d.data" -F "$F" >"$T/perf.out" 2>/dev/null
		"$PERFKIT" script -i "$T/$d.data" -F "$F" >"$T/pk.out" 2>/dev/null
		srcline_same "$T/perf.out" "$T/pk.out" || { bad="$bad $F"; diff "$T/perf.out" "$T/pk.out" | head -4 | sed 's/^/# /'; }
	done
	perf script -i "$T/$d.data" -G -F comm,ip,sym,srcline >"$T/perf.out" 2>/dev/null
	"$PERFKIT" script -i "$T/$d.data" -G -F comm,ip,sym,srcline >"$T/pk.out" 2>/dev/null
	srcline_same "$T/perf.out" "$T/pk.out" || bad="$bad -G"
	expect "$d.data -F ...,srcline: perf script's lines${bad:+ (differ:$bad)}" test -z "$bad"
done
if [ -s "$T/tp.data" ]; then
	"$PERFKIT" script -i "$T/tp.data" -F +srcline >"$T/out" 2>"$T/err"
	expect "tp.data -F +srcline: refused as perf (the tracepoint's fields have no ip)" \
		sh -c "[ $? -eq 1 ] && [ ! -s '$T/out' ] && grep -q 'srcline needs ip' '$T/err'"
fi
expect "cg.data srcline: the workload's lines by file and number" grep -q '^  burn2to1\.c:[0-9][0-9]*$' "$T/pk.out"
"$PERFKIT" script -i "$T/cg.data" -F comm,srcline >"$T/out" 2>"$T/err"
expect 'srcline without ip: refused (1), saying why' sh -c "[ $? -eq 1 ] && grep -q 'srcline needs ip' '$T/err'"
done_testing
