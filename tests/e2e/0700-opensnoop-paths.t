#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit opensnoop: a test program's opens with FD or error; -F resolves
# openat(fd of /etc, "passwd") to /etc/passwd; -p filters by process.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require

OPENER=$PK_BUILD/tests/workloads/opener
: >"$T/marker"
if tracer_start "$T/out" "$T/err" "$PERFKIT" opensnoop -F -n opener; then
	"$OPENER" "$T/marker"
	tracer_stop
	expect 'Ctrl-C ends it with status 0' test $? = 0
	sed 's/^/# /' "$T/out" | grep -v 'ld.so\|lib' | head
	expect 'header' grep -Eq '^PID +COMM +FD ERR PATH$' "$T/out"
	expect 'the marker file opened (fd >= 3, no error)' \
		grep -Eq "^[0-9]+ +opener +([3-9]|[1-9][0-9]+) +0 $T/marker\$" "$T/out"
	expect '-F: openat(fd of /etc, "passwd") shown as /etc/passwd' \
		grep -Eq '^[0-9]+ +opener +[0-9]+ +0 /etc/passwd$' "$T/out"
	expect 'a missing file: fd -1, error 2' \
		grep -Eq "^[0-9]+ +opener +-1 +2 $T/marker.missing\$" "$T/out"
	expect '-n: only opener' test "$(awk 'NR > 1 && $2 != "opener"' "$T/out" | wc -l)" = 0
else
	not_ok 'opensnoop starts'
fi

# without -F the relative name stays as given; -x shows only failures
if tracer_start "$T/out2" "$T/err2" "$PERFKIT" opensnoop -n opener -e; then
	"$OPENER" "$T/marker"
	tracer_stop
	expect 'without -F: "passwd" as given' grep -Eq '^[0-9]+ +opener +[0-9]+ +0 +[0-7]{8} passwd$' "$T/out2"
	expect '-e: flags column (O_DIRECTORY for /etc)' grep -Eq ' 0 +0*2[0-7]{5} /etc$' "$T/out2"
else
	not_ok 'opensnoop -e starts'
fi

# -p: the kernel filter keeps this shell's opens and drops the child's
if tracer_start "$T/out3" "$T/err3" "$PERFKIT" opensnoop -p $$ -x; then
	read -r _ 2>/dev/null <"$T/marker.p-missing"   # opened by this shell itself
	"$OPENER" "$T/marker"
	tracer_stop
	expect '-p: this shell (failed open seen, with -x)' grep -Eq "^$$ .* -1 +2 $T/marker.p-missing\$" "$T/out3"
	expect '-p: no other process' test "$(awk -v p=$$ 'NR > 1 && $1 != p' "$T/out3" | wc -l)" = 0
else
	not_ok 'opensnoop -p starts'
fi
# -d: tracing ends by itself after the duration, with status 0, and an
# open made meanwhile is in the output
s0=$(date +%s%N)
"$PERFKIT" opensnoop -d 2 -n opener >"$T/out4" 2>"$T/err4" &
dpid=$!
for _ in $(seq 100); do grep -q Tracing "$T/err4" && break; sleep 0.1; done
"$OPENER" "$T/marker.d"
wait "$dpid"
rc=$?
el=$(( ($(date +%s%N) - s0) / 1000000 ))
expect "-d 2: ends by itself with status 0 ($rc, after $el ms)" test "$rc" = 0 -a "$el" -lt 15000
expect '-d 2: the open made meanwhile is there' grep -q "marker.d" "$T/out4"
done_testing
