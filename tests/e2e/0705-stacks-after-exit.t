#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Symbols that outlive the process: perfkit profile samples a program that
# spins 400 ms in spin_here() and exits; the tool prints seconds later,
# when /proc/PID/maps is gone, and still names its frames (main;spin_here)
# from the snapshot taken while it ran (bpfutil/ustack.h).  Its binary is
# a copy deleted once it has exited, so only symbols loaded while the
# process lived can name it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require
cp "$PK_BUILD/tests/workloads/napper" "$T/spinx"

if tracer_start "$T/out" "$T/err" "$PERFKIT" profile -f -F 199; then
	"$T/spinx" 0 400 1 >"$T/pid"
	rm -f "$T/spinx"
	sleep 0.5
	tracer_stop
	expect 'Ctrl-C ends it with status 0' test $? = 0
	grep '^spinx;' "$T/out" | sed 's/^/# /' | head -8
	n=$(awk '/^spinx;/ && /;main;spin_here/ { s += $NF } END { print s + 0 }' "$T/out")
	all=$(awk '/^spinx;/ { s += $NF } END { print s + 0 }' "$T/out")
	expect "samples of the exited process named main;spin_here ($n of $all)" test "$n" -gt 0
	expect "most of its samples named ($n of $all)" test $((n * 10)) -ge $((all * 8))
else
	not_ok 'profile starts'
fi
done_testing
