#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit execsnoop's bcc filters: -c CGROUP (only execs of tasks in a
# cgroup v2 directory made for the test), -l LINE (an extended regular
# expression on the arguments), -q (every argument in double quotes, a "
# inside as \"); bad values are usage errors in the shared wording.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require
tag=pk$$

# -l and -q
if tracer_start "$T/out" "$T/err" "$PERFKIT" execsnoop -q -l "alpha-$tag-[0-9]+"; then
	/bin/echo "alpha-$tag-1" 'a"b' >/dev/null
	/bin/echo "beta-$tag-2" >/dev/null
	/bin/echo "alpha-$tag-x" >/dev/null
	sleep 0.3
	tracer_stop
	expect 'Ctrl-C ends it with status 0' test $? = 0
	sed 's/^/# /' "$T/out"
	expect '-l: the matching exec shown, quoted by -q' \
		grep -Fq "\"/bin/echo\" \"alpha-$tag-1\" \"a\\\"b\"" "$T/out"
	expect '-l: the others not shown' test "$(grep -c "$tag" "$T/out")" = 1
else
	not_ok 'execsnoop -q -l starts'
fi

# -c: a cgroup v2 directory of our own
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$cg2" ] && mkdir "$cg2/perfkit-test-$$" 2>/dev/null; then
	CG=$cg2/perfkit-test-$$
	if tracer_start "$T/cg" "$T/cg.err" "$PERFKIT" execsnoop -c "$CG"; then
		sh -c "echo \$\$ > '$CG/cgroup.procs' && exec /bin/echo inside-$tag" >/dev/null
		/bin/echo "outside-$tag" >/dev/null
		sleep 0.3
		tracer_stop
		sed 's/^/# /' "$T/cg"
		expect '-c: the exec inside the cgroup shown' grep -q "inside-$tag" "$T/cg"
		expect '-c: the exec outside not shown' test "$(grep -c "outside-$tag" "$T/cg")" = 0
	else
		not_ok 'execsnoop -c starts'
	fi
	rmdir "$CG" 2>/dev/null || { sleep 0.5; rmdir "$CG"; }
else
	skip 'no cgroup v2 mount where a directory can be made'
fi

"$PERFKIT" execsnoop -c /tmp >/dev/null 2>"$T/e1"
expect '-c on a non-cgroup directory: exit 1, says so' \
	sh -c "grep -q \"^perfkit execsnoop: -c: '/tmp' is not a cgroup v2 directory\" '$T/e1'"
"$PERFKIT" execsnoop -l '(' >/dev/null 2>"$T/e2"
expect '-l with a bad regex: usage error' test $? = 2
"$PERFKIT" execsnoop -u x >/dev/null 2>"$T/e3"
expect '-u x: usage error in the shared wording' grep -q '^perfkit execsnoop: -u expects' "$T/e3"
done_testing
