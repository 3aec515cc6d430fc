#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Symbols that outlive the process: perfkit profile samples a program that
# spins 1 s in spin_here() and exits; the tool prints seconds later,
# when /proc/PID/maps is gone, and still names its frames (main;spin_here)
# from the snapshot taken while it ran (bpfutil/ustack.h).  Its binary is
# a copy deleted once it has exited, so only symbols loaded while the
# process lived can name it.  Then a binary replaced at the same path while
# the tool runs: each process named from its own file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require
cp "$PK_BUILD/tests/workloads/napper" "$T/spinx"

if tracer_start "$T/out" "$T/err" "$PERFKIT" profile -f -F 199; then
	"$T/spinx" 0 1000 1 >"$T/pid"
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

# A binary rebuilt at the same path while the tool runs: the process of the
# old file and that of the new one are each named from their own symbols
# (files told apart by inode, ustack.h), both after they have exited.
cp "$PK_BUILD/tests/workloads/spin" "$T/rb"
if tracer_start "$T/out2" "$T/err2" "$PERFKIT" profile -F 199; then
	"$T/rb" 1000 >"$T/cpuA" &
	pidA=$!
	sleep 0.3; kill -USR1 $pidA
	for i in $(seq 100); do [ -s "$T/cpuA" ] && break; sleep 0.05; done
	kill $pidA; wait $pidA 2>/dev/null
	cp "$PK_BUILD/tests/workloads/napper" "$T/rb.new" && mv -f "$T/rb.new" "$T/rb"
	"$T/rb" 0 1000 1 >"$T/pidB"
	sleep 0.3
	tracer_stop
	pidB=$(head -1 "$T/pidB")
	# bcc's layout: frames, then "-  comm (pid)", then the count
	blk() { awk -v p="$1" '{ b = b $0 "\n" } /^ +- +rb \(/ { if ($0 ~ "\\(" p "\\)$") print b; b = "" } /^$/ { b = "" }' "$T/out2"; }
	blk "$pidA" >"$T/A"; blk "$pidB" >"$T/B"
	head -4 "$T/A" | sed 's/^/# A: /'; head -4 "$T/B" | sed 's/^/# B: /'
	expect 'the old binary'"'"'s process (spin): main, no spin_here' \
		sh -c "grep -q '^    main\$' '$T/A' && ! grep -q spin_here '$T/A'"
	expect 'the new binary'"'"'s process (napper): spin_here, from its own symbols' \
		grep -q '^    spin_here$' "$T/B"
else
	not_ok 'profile starts (rebuilt binary)'
fi
done_testing
