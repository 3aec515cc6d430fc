#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# record refuses outputs and call-graph values it cannot honour before the
# command runs: -o DIR, -o "", --call-graph VALUE typos (-o -, perf's pipe
# mode, is written: 0108).
. "$(dirname "$0")/lib.sh"

marker=$T/ran
run_rec() { "$PERFKIT" record "$@" -- sh -c "touch '$marker'" >"$T/out" 2>"$T/err"; }

(cd "$T" && "$PERFKIT" record -o - -- true >"$T/out" 2>"$T/err")
expect "-o -: no file named '-' (the stream goes to stdout)" test ! -e ./- -a ! -e "$T/-"
run_rec -o "$T"
expect "-o DIR: usage error (2)" test $? = 2
expect "-o DIR: says it is a directory" grep -q "is a directory" "$T/err"
run_rec -o ""
expect "-o '': usage error (2)" test $? = 2
run_rec --call-graph foo -o "$T/x.data"
expect "--call-graph foo: usage error (2)" test $? = 2
expect "--call-graph foo: names the value" grep -q "'foo' is not supported" "$T/err"
expect "none of these ran the command" test ! -e "$marker"

# a device or FIFO is written to, never replaced by a regular file
# (perf record -o /dev/null works); tested on private nodes, not /dev/null
if [ "$(id -u)" = 0 ] && mknod "$T/mynull" c 1 3 2>/dev/null; then
	TMPDIR=$T "$PERFKIT" record -o "$T/mynull" -- true >/dev/null 2>"$T/err"
	expect "-o a char device: exit 0" test $? = 0
	expect "... and it is still the device" test -c "$T/mynull"
	expect "... its temporary file (in TMPDIR) removed" test -z "$(ls "$T" | grep -E 'mynull.|perfkit-record')"
else
	skip "-o a char device: needs root (mknod)"
fi
mkfifo "$T/ff"
cat "$T/ff" >"$T/ff.data" & reader=$!
"$PERFKIT" record -o "$T/ff" -- "$PK_BUILD/tests/workloads/burn2to1" 100 >/dev/null 2>"$T/err"
rc=$?
wait $reader
expect "-o a FIFO: exit 0 ($rc)" test $rc = 0
expect "... still a FIFO" test -p "$T/ff"
expect "... the reader got a whole perf.data" sh -c "'$PERFKIT' report -i '$T/ff.data' 2>/dev/null | grep -q burn_"
ln -s ff "$T/fflink"
cat "$T/ff" >"$T/ff2.data" & reader=$!
"$PERFKIT" record -o "$T/fflink" -- true >/dev/null 2>"$T/err"
rc=$?
wait $reader
expect "-o a symlink to a FIFO (like /dev/stdout): written through ($rc)" test $rc = 0 -a -L "$T/fflink" -a -s "$T/ff2.data"
"$PERFKIT" record -o /dev/stdout -- "$PK_BUILD/tests/workloads/burn2to1" 100 >"$T/so.data" 2>"$T/err"
expect "-o /dev/stdout with stdout on a file: a whole perf.data there" \
	sh -c "'$PERFKIT' report -i '$T/so.data' 2>/dev/null | grep -q burn_"
expect "... /dev/stdout still a link" test -L /dev/stdout
# appended (>>) to a file that holds something: written through the open
# descriptor, after what was there (never truncated, never renamed to .old)
echo precious >"$T/app.data"
"$PERFKIT" record -o /proc/self/fd/1 -- true >>"$T/app.data" 2>/dev/null
expect "-o /proc/self/fd/1 with >>: the old content kept, perf.data after it" \
	sh -c "head -1 '$T/app.data' | grep -q '^precious\$' && tail -c +10 '$T/app.data' | head -c 8 | grep -q PERFILE2"
expect "... and no FILE.old made of the link" test ! -e /proc/self/fd/1.old -a ! -e "$T/app.data.old"
# a FIFO nobody reads: record waits for a reader, Ctrl-C gives up (it was
# stuck in open() with signals blocked), and the recording is kept
mkfifo "$T/lonely"
s0=$(date +%s)
TMPDIR=$T timeout -s INT -k 60 2 "$PERFKIT" record -o "$T/lonely" -- true >/dev/null 2>"$T/lonely.err"
el=$(( $(date +%s) - s0 ))
# 2 s then the Ctrl-C; a record that ignored it would be killed at 62 s
expect "FIFO without a reader: Ctrl-C ends the wait ($el s)" test "$el" -le 30
expect "... says so, naming where the recording is" grep -q 'interrupted while waiting for a reader; the recording is in' "$T/lonely.err"
kept=$(sed -n 's/.*the recording is in //p' "$T/lonely.err")
expect "... and that file is a perf.data" sh -c "test -n '$kept' && '$PERFKIT' report -i '$kept' >/dev/null 2>&1"
done_testing
