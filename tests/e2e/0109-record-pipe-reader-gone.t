#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# record -o - when the reader goes away early (| head -c 100) or stdout is
# closed: record ends at once with one line, and the command it started is
# stopped and reaped, not left running as an orphan (perf record dies of
# SIGPIPE and its workload goes too); the command still gets SIGPIPE's
# default disposition.
. "$(dirname "$0")/lib.sh"
if ! can_perf_event; then skip "perf events not allowed here"; done_testing; exit; fi
cd "$T" || exit 1
# a workload of ~30 s, its command line tagged
tag=pk0109-$$-$RANDOM
cat >wl.sh <<EOS
end=\$((\$(date +%s) + 30))
while [ \$(date +%s) -lt \$end ]; do :; done
EOS

start=$(date +%s)
timeout 60 "$PERFKIT" record -o - -- sh wl.sh "$tag" 2>err | head -c 100 >head.out
rc=${PIPESTATUS[0]}
took=$(($(date +%s) - start))
expect "record -o - | head -c 100: exit 1, not SIGPIPE or a hang ($rc)" test "$rc" = 1
expect "... within 15 s, not the workload's 30 ($took s)" test "$took" -lt 15
expect "... one line saying the reader closed the pipe" grep -q '^perfkit record: standard output: the reader closed the pipe after [0-9]* bytes; recording stopped$' err
expect "... and nothing else on stderr" test "$(wc -l <err)" = 1
expect "... head got its 100 bytes" test "$(wc -c <head.out)" = 100
sleep 0.5
expect_fail "... the workload is not left running" pgrep -f "$tag"
for p in $(pgrep -f "$tag"); do kill "$p"; done   # (only if the check above failed)

# the command's SIGPIPE is the default again (record ignores it for itself)
"$PERFKIT" record -o rec.data -- sh -c 'grep SigIgn /proc/self/status' >sig.out 2>/dev/null
ign=$(awk '/SigIgn/ {print $2}' sig.out)
expect "the command does not inherit an ignored SIGPIPE (SigIgn $ign)" \
	test -n "$ign" -a "$(( 0x${ign:-0} & 0x1000 ))" = 0

# stdout closed
"$PERFKIT" record -o - -- true >&- 2>err2; rc=$?
expect "record -o - with stdout closed: exit 1 ($rc)" test "$rc" = 1
expect "... says standard output is closed" grep -q '^perfkit record: standard output is closed' err2
expect "... one line" test "$(wc -l <err2)" = 1
done_testing
