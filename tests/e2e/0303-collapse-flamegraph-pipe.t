#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perf.data on a pipe: `cat perf.data | perfkit collapse` and
# `perfkit flamegraph -` give what the file gives, `perf record -o - |`
# (perf's pipe mode) is read as a stream, nothing is spooled to a
# temporary file (TMPDIR stays empty; under strace nothing is opened for
# writing), and a pipe that starts with something else is folded text or
# refused at once.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
W=$PK_BUILD/tests/workloads/burn2to1
"$PERFKIT" record -g -o "$T/f.data" -- "$W" 300 >/dev/null 2>"$T/rec.err"
if [ ! -s "$T/f.data" ]; then skip "record failed: $(head -1 "$T/rec.err")"; done_testing; exit; fi
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"

"$PERFKIT" collapse "$T/f.data" >"$T/file.folded" 2>/dev/null
cat "$T/f.data" | "$PERFKIT" collapse >"$T/pipe.folded" 2>"$T/err"
expect "cat perf.data | collapse: exit 0" test $? = 0
expect "... some stacks" grep -q 'burn_two' "$T/pipe.folded"
same_file "... the stacks of the file itself" "$T/file.folded" "$T/pipe.folded"
cat "$T/f.data" | "$PERFKIT" collapse - >"$T/pipe2.folded" 2>/dev/null
same_file "cat perf.data | collapse -: the same" "$T/file.folded" "$T/pipe2.folded"

"$PERFKIT" flamegraph "$T/f.data" >"$T/file.svg" 2>/dev/null
cat "$T/f.data" | "$PERFKIT" flamegraph - >"$T/pipe.svg" 2>"$T/err"
expect "cat perf.data | flamegraph -: exit 0" test $? = 0
same_file "... the graph of the file itself" "$T/file.svg" "$T/pipe.svg"
cat "$T/f.data" | "$PERFKIT" flamegraph >"$T/pipe2.svg" 2>/dev/null
same_file "... and without the -" "$T/file.svg" "$T/pipe2.svg"
"$PERFKIT" collapse "$T/f.data" | "$PERFKIT" flamegraph --countname ns >"$T/text.svg" 2>/dev/null
same_file "folded text on a pipe still draws the same graph" "$T/file.svg" "$T/text.svg"
expect "no temporary file left in TMPDIR" test -z "$(ls -A "$TMPDIR")"

if have strace; then
	cat "$T/f.data" | strace -f -qq -o "$T/trace" -e trace=open,openat,creat "$PERFKIT" collapse >/dev/null 2>&1
	grep -E '^[0-9]+ +((open|openat)\(.*(O_WRONLY|O_RDWR|O_CREAT)|creat\()' "$T/trace" | grep -v '= -1' >"$T/writes" || true
	diag "$(head -3 "$T/writes")"
	expect "collapse on a pipe opens no file for writing" test ! -s "$T/writes"
	cat "$T/f.data" | strace -f -qq -o "$T/trace2" -e trace=open,openat,creat "$PERFKIT" flamegraph - >/dev/null 2>&1
	grep -E '^[0-9]+ +((open|openat)\(.*(O_WRONLY|O_RDWR|O_CREAT)|creat\()' "$T/trace2" | grep -v '= -1' >"$T/writes2" || true
	expect "flamegraph on a pipe opens no file for writing" test ! -s "$T/writes2"
else
	skip "strace not installed"
fi

if have perf; then
	perf record -q -g -o - -- "$W" 300 2>/dev/null >"$T/pipe.data"
	if [ -s "$T/pipe.data" ]; then
		perf record -q -g -o - -- "$W" 300 2>/dev/null | "$PERFKIT" collapse >"$T/pm.folded" 2>"$T/err"
		expect "perf record -o - | collapse: exit 0" test $? = 0
		expect "... burn_two and burn_one in the stacks" sh -c "grep -q burn_two '$T/pm.folded' && grep -q burn_one '$T/pm.folded'"
		perf record -q -g -o - -- "$W" 300 2>/dev/null | "$PERFKIT" flamegraph - >"$T/pm.svg" 2>"$T/err"
		expect "perf record -o - | flamegraph -: exit 0" test $? = 0
		expect "... an SVG with burn_two" grep -q 'burn_two' "$T/pm.svg"
		cat "$T/pipe.data" | "$PERFKIT" collapse >"$T/pm2.folded" 2>/dev/null
		"$PERFKIT" collapse "$T/pipe.data" >"$T/pm3.folded" 2>/dev/null
		same_file "pipe-mode data: from a pipe as from the file" "$T/pm3.folded" "$T/pm2.folded"
		# no -i with a piped stdin: the pipe, not a ./perf.data (perf's rule)
		mkdir "$T/cwd" && cp "$T/f.data" "$T/cwd/perf.data"
		"$PERFKIT" script -i "$T/pipe.data" >"$T/ps.file" 2>/dev/null
		(cd "$T/cwd" && cat "$T/pipe.data" | "$PERFKIT" script >"$T/ps.pipe" 2>/dev/null)
		same_file "cat pipe.data | script (no -i, a perf.data in the folder): the pipe's samples" \
			"$T/ps.file" "$T/ps.pipe"
		"$PERFKIT" report --stdio -i "$T/pipe.data" 2>/dev/null | grep -v '^# \(Total\|Samples\)' >"$T/pr.file"
		(cd "$T/cwd" && cat "$T/pipe.data" | "$PERFKIT" report --stdio 2>/dev/null) |
			grep -v '^# \(Total\|Samples\)' >"$T/pr.pipe"
		same_file "... and report" "$T/pr.file" "$T/pr.pipe"
		(cd "$T/cwd" && "$PERFKIT" script </dev/null 2>/dev/null | head -1 >"$T/ps.null")
		expect "stdin not a pipe: ./perf.data as before" test -s "$T/ps.null"
	else
		skip "perf record -o - failed"
	fi
else
	skip "perf not installed"
fi

# not perf.data: refused at once from the magic, not after reading it all
printf 'PERFILE3xxxxxxxxxxxxxxxx' | "$PERFKIT" collapse >/dev/null 2>"$T/bad.err"
expect "a pipe that is neither text nor perf.data is text: no crash" test $? -le 1
timeout 10 sh -c "{ printf 'PERFILE2'; printf '\\377%.0s' \$(seq 8); cat /dev/zero; } | '$PERFKIT' collapse" >/dev/null 2>"$T/zero.err"
rc=$?
expect "PERFILE2 then a bad header on an endless pipe: refused, not read forever ($rc)" test $rc = 1
diag "$(head -2 "$T/zero.err")"
done_testing
