#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# record -o - (and record with no -o into a pipe, as perf's check_pipe):
# perf's pipe mode on stdout, written as the records come — a 16-byte
# header, HEADER_ATTR / HEADER_FEATURE / EVENT_UPDATE records, the data —
# so `perfkit record -o - | perf report -i -` works as with perf record,
# and the command's stdout goes to stderr (it would corrupt the stream).
. "$(dirname "$0")/lib.sh"
if ! can_perf_event; then skip "perf events not allowed here"; done_testing; exit; fi
burn=$PK_BUILD/tests/workloads/burn2to1
cd "$T"
cmd=(sh -c "echo printed-by-cmd-\$((6 * 7)); exec $burn 20")

"$PERFKIT" record -o - -- "${cmd[@]}" >pipe.data 2>err; rc=$?
expect "record -o - > FILE: exit 0 ($rc)" test $rc = 0
expect "... pipe mode's header: PERFILE2, then a size of 16" \
	test "$(od -An -tx1 -N16 pipe.data | tr -d ' \n')" = 50455246494c45321000000000000000
expect "... the first record is a HEADER_ATTR (type 64)" \
	test "$(od -An -tu4 -j16 -N4 pipe.data | tr -d ' ')" = 64
expect "... the command's output on stderr" grep -q '^printed-by-cmd-42$' err
expect_fail "... and not in the data" grep -q printed-by-cmd-42 pipe.data
expect "... the summary names standard output" grep -q 'written to standard output (pipe mode)' err
"$PERFKIT" report -i - --stdio <pipe.data >rep 2>rep.err
n=$(sed -n "s/^# Samples: \([0-9]*\) *of event 'cpu-clock'.*/\1/p" rep)
expect "perfkit report -i - reads it: samples of cpu-clock ($n)" test "${n:-0}" -gt 0
expect "... burn's functions in it" grep -q 'burn' rep
# the file-mode reader must not take it: it is read only as a stream
"$PERFKIT" report -i pipe.data --stdio >rep2 2>&1
expect "report -i FILE of pipe-mode data: the same samples" grep -q "^# Samples: $n .*cpu-clock" rep2

if have perf; then
	perf report -i - --stdio <pipe.data >prep 2>prep.err
	pn=$(sed -n "s/^# Samples: \([0-9]*\) *of event 'cpu-clock'.*/\1/p" prep)
	expect "perf report -i - reads it: $pn samples of 'cpu-clock' (perfkit: $n)" test "${pn:-x}" = "$n"
	perf report --stats -i - <pipe.data >pstats 2>/dev/null
	expect "perf report --stats names its event from the attr as perf's own: 'cpu-clock' (exclude_guest, perf's default)" \
		grep -q '^cpu-clock stats:' pstats
	perf report --header-only -i - <pipe.data >hdr 2>&1
	expect "... its header: the command line from HEADER_FEATURE" grep -q '^# cmdline : .*record -o - -- sh -c' hdr
	expect "... the event, named, with its ids" grep -q '^# event : name = cpu-clock, .*id = { [0-9]' hdr
	perf script -i - <pipe.data >pscript 2>/dev/null
	"$PERFKIT" script -i - <pipe.data >kscript 2>/dev/null
	expect "perf script of it: one line per sample" test "$(wc -l <pscript)" = "$n"
	same_file "perfkit script = perf script on the stream (the event named by EVENT_UPDATE: 'cpu-clock:', not 'cpu-clock:HG:')" pscript kscript
else
	skip "perf not installed: perf's reading of the stream not checked"
fi

# a command line past a record's 16-bit size: its HEADER_FEATURE left
# out, the stream still whole (a truncated size broke it)
long=$(head -c 70000 /dev/zero | tr '\0' x)
"$PERFKIT" record -o - -- sh -c "exec $burn 5 $long" >long.data 2>/dev/null
"$PERFKIT" report -i - --stdio <long.data >long.rep 2>long.err
expect "a 70 kB command line: the stream still reads (report -i -: samples)" grep -q "^# Samples: [1-9]" long.rep

# no -o, stdout a pipe: pipe mode there, and no ./perf.data
rm -f perf.data
"$PERFKIT" record -- "${cmd[@]}" 2>err2 | "$PERFKIT" report -i - --stdio >rep3 2>&1
expect "record into a pipe without -o: report -i - reads the stream" grep -q "^# Samples: [1-9].*cpu-clock" rep3
expect "... no ./perf.data written" test ! -e perf.data
expect "... the command's output on stderr" grep -q '^printed-by-cmd-42$' err2
# no -o, stdout a file: ./perf.data as before
"$PERFKIT" record -- "${cmd[@]}" >out4 2>/dev/null
expect "record without -o, stdout a file: ./perf.data" test -s perf.data
expect "... the command's stdout stays stdout" grep -q '^printed-by-cmd-42$' out4

# streamed, not written at the end: the header reaches a reader while the
# command still runs
mkfifo fifo
"$PERFKIT" record -o - -- sleep 60 >fifo 2>err5 &
rpid=$!
{ timeout 20 head -c 16 >head16; cat >/dev/null; } <fifo &
hpid=$!
wait_until 20 test -s head16
expect "the stream's header arrives while the command runs" test "$(head -c 8 head16)" = PERFILE2
expect "... record is still running then" kill -0 $rpid
kill -INT $rpid 2>/dev/null
wait $rpid 2>/dev/null
wait $hpid 2>/dev/null
done_testing
