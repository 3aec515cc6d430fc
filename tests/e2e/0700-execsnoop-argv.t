#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit execsnoop: exact argv (empty and spaced arguments quoted), "..."
# only when arguments were really cut, failed execs with -x and their errno;
# execl() with string literals not yet faulted in (argv from the new process).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require

"$PERFKIT" execsnoop --max-args 0 >/dev/null 2>"$T/usage"
expect 'bad --max-args: usage error, exit 2' test $? = 2
expect 'the usage error names the value' grep -q "\-\-max-args expects an integer from 1 to [0-9]*, got '0'" "$T/usage"

long127=$(printf 'a%.0s' $(seq 127))
long128=$(printf 'b%.0s' $(seq 128))
if tracer_start "$T/out" "$T/err" "$PERFKIT" execsnoop -x --max-args 4; then
	/bin/echo 1 2 3 >/dev/null
	/bin/echo a '' 'b c' >/dev/null
	/bin/echo 1 2 3 4 >/dev/null
	/bin/echo "$long127" >/dev/null
	/bin/echo "$long128" >/dev/null
	"$T/no-such-program" 2>/dev/null
	"$PK_BUILD/tests/workloads/execlit" >/dev/null
	sleep 0.3
	tracer_stop
	expect 'Ctrl-C ends it with status 0' test $? = 0
	sed 's/^/# /' "$T/out" | grep -E 'echo|no-such' | head -20
	expect 'header' grep -q '^PCOMM  *PID  *PPID  *RET ARGS$' "$T/out"
	expect 'exact argv of /bin/echo 1 2 3' grep -Eq '^echo +[0-9]+ +[0-9]+ +0 /bin/echo 1 2 3$' "$T/out"
	expect "empty argument kept as '' and spaces quoted" \
		grep -q "^echo .* 0 /bin/echo a '' 'b c'\$" "$T/out"
	expect "... only when arguments were cut (5 args, --max-args 4)" \
		grep -Eq ' 0 /bin/echo 1 2 3 \.\.\.$' "$T/out"
	expect 'a 127-byte argument is whole, no ...' grep -Eq " 0 /bin/echo $long127\$" "$T/out"
	expect 'a 128-byte argument is cut, with ...' grep -Eq " 0 /bin/echo b{127} \.\.\.\$" "$T/out"
	expect 'failed exec of a missing file: -2 (ENOENT)' \
		grep -Eq " -2 $T/no-such-program\$" "$T/out"
	expect 'execl() with literals not yet read: exact argv (from the new process)' \
		grep -Eq "^echo .* 0 /bin/echo lit-one '' 'lit two'\$" "$T/out"
	expect 'banner on stderr' grep -q 'Tracing exec()s... Hit Ctrl-C to end.' "$T/err"
else
	not_ok 'execsnoop starts'
fi

# the argv taken from the new process obeys --max-args too
if tracer_start "$T/out5" "$T/err5" "$PERFKIT" execsnoop -n echo --max-args 2; then
	"$PK_BUILD/tests/workloads/execlit" >/dev/null
	sleep 0.3
	tracer_stop
	sed 's/^/# /' "$T/out5" | grep -E 'lit' | head
	expect 'literal argv with --max-args 2: two arguments, then ...' \
		grep -Eq '^echo .* 0 /bin/echo lit-one \.\.\.$' "$T/out5"
else
	not_ok 'execsnoop --max-args 2 starts'
fi

# as an unprivileged user: one line saying what is needed, exit 1
if have setpriv; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PERFKIT" execsnoop >/dev/null 2>"$T/nonroot"
	expect 'unprivileged: exit 1' test $? = 1
	expect '... "requires root (CAP_BPF and CAP_PERFMON)" in one line' \
		test "$(cat "$T/nonroot")" = "perfkit execsnoop: requires root (CAP_BPF and CAP_PERFMON)"
else
	skip 'setpriv (util-linux) not installed'
fi
done_testing
