#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit opensnoop: a test program's opens with FD or error; -F resolves
# openat(fd of /etc, "passwd") to /etc/passwd, and paths relative to the
# cwd (with ../), to a dirfd closed right after, from a thread that ended,
# and across a mount point; -p filters by process, -t by thread, -f by
# open flags.
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

# -F with relative paths: relopen chdirs to $T/w, opens f.txt, ../up.txt,
# openat(fd of d, "sub/f.txt") then closes the fd at once, ./thr.txt from a
# thread that ends at once, and the missing nope.txt (fails)
mkdir -p "$T/w/d/sub"
touch "$T/w/f.txt" "$T/up.txt" "$T/w/d/sub/f.txt" "$T/w/thr.txt"
shm=
if mountpoint -q /dev/shm 2>/dev/null && shm=$(mktemp -d /dev/shm/pk-relopen.XXXXXX); then
	mkdir -p "$shm/w/d/sub"
	touch "$shm/w/f.txt" "$shm/w/d/sub/f.txt"
fi
if tracer_start "$T/rout" "$T/rerr" "$PERFKIT" opensnoop -F -n relopen; then
	"$PK_BUILD/tests/workloads/relopen" "$T/w"
	[ -n "$shm" ] && "$PK_BUILD/tests/workloads/relopen" "$shm/w"
	tracer_stop
	sed 's/^/# /' "$T/rout" | grep -v 'ld.so\|lib'
	expect '-F: "f.txt" against the cwd' grep -Eq "^[0-9]+ +relopen +[0-9]+ +0 $T/w/f.txt\$" "$T/rout"
	expect '-F: "../up.txt" with the .. folded' grep -Eq "^[0-9]+ +relopen +[0-9]+ +0 $T/up.txt\$" "$T/rout"
	expect '-F: openat(dirfd, "sub/f.txt"), dirfd closed at once' \
		grep -Eq "^[0-9]+ +relopen +[0-9]+ +0 $T/w/d/sub/f.txt\$" "$T/rout"
	expect '-F: "./thr.txt" from a thread that ended' \
		grep -Eq "^[0-9]+ +relopen +[0-9]+ +0 $T/w/thr.txt\$" "$T/rout"
	expect '-F: a failed open resolved too' grep -Eq "^[0-9]+ +relopen +-1 +2 $T/w/nope.txt\$" "$T/rout"
	expect '-F: no relative path left' test "$(awk 'NR > 1 && $5 !~ /^\//' "$T/rout" | wc -l)" = 0
	if [ -n "$shm" ]; then
		expect '-F: across a mount point (/dev/shm)' \
			grep -Eq "^[0-9]+ +relopen +[0-9]+ +0 $shm/w/d/sub/f.txt\$" "$T/rout"
	else
		skip '/dev/shm is not a mount point here'
	fi
else
	not_ok 'opensnoop -F starts'
fi
[ -n "$shm" ] && rm -rf "$shm"

# without -F the relative name stays as given; -x shows only failures
if tracer_start "$T/out2" "$T/err2" "$PERFKIT" opensnoop -n opener -e; then
	"$OPENER" "$T/marker"
	tracer_stop
	expect 'without -F: "passwd" as given' grep -Eq '^[0-9]+ +opener +[0-9]+ +0 +[0-7]{8} passwd$' "$T/out2"
	expect '-e: flags column (O_DIRECTORY for /etc)' grep -Eq ' 0 +0*2[0-7]{5} /etc$' "$T/out2"
else
	not_ok 'opensnoop -e starts'
fi

# -p: the kernel filter keeps this shell's opens and drops the child's;
# -t (bcc's): a thread, this shell's own, the same way
for opt in p t; do
	if [ $opt = p ]; then who="this shell" other=process; else who="this thread" other=thread; fi
	if tracer_start "$T/out-$opt" "$T/err-$opt" "$PERFKIT" opensnoop -$opt $$ -x; then
		read -r _ 2>/dev/null <"$T/marker.$opt-missing"   # opened by this shell itself
		"$OPENER" "$T/marker"
		tracer_stop
		expect "-$opt: $who (failed open seen, with -x)" grep -Eq "^$$ .* -1 +2 $T/marker.$opt-missing\$" "$T/out-$opt"
		expect "-$opt: no other $other" test "$(awk -v p=$$ 'NR > 1 && $1 != p' "$T/out-$opt" | wc -l)" = 0
	else
		not_ok "opensnoop -$opt starts"
	fi
done
# -f FLAG (bcc's --flag_filter, names as os.O_*): the opens with any of
# the flags: opener's /etc (O_DIRECTORY), not its O_RDONLY files
if tracer_start "$T/out6" "$T/err6" "$PERFKIT" opensnoop -n opener -f O_DIRECTORY -f o_wronly; then
	"$OPENER" "$T/marker"
	tracer_stop
	expect '-f O_DIRECTORY: the open of /etc' grep -Eq '^[0-9]+ +opener +[0-9]+ +0 /etc$' "$T/out6"
	expect '-f O_DIRECTORY: not the O_RDONLY ones' sh -c "! grep -Eq 'marker|passwd' '$T/out6'"
else
	not_ok 'opensnoop -f starts'
fi
"$PERFKIT" opensnoop -f O_BOGUS >/dev/null 2>"$T/errf"
expect '-f O_BOGUS: a usage error (2)' test $? = 2
expect '... naming it' grep -q "O_BOGUS': not an open flag" "$T/errf"
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
