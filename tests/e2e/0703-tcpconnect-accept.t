#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit tcpconnect and tcpaccept: one loopback IPv4 and one IPv6
# connection (127.0.0.1 and ::1 only), each seen exactly once by each tool
# with both ports and the right process; the same transitions counted by a
# bpftrace one-liner on the same tracepoint (sock:inet_sock_set_state)
# running at the same time; -c counts; option errors are usage errors.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require
if ! have python3; then skip 'python3 not installed'; done_testing; exit 0; fi

cat >"$T/conn.py" <<'PY'
import os, socket, sys
v6 = sys.argv[1] == "6"
fam, host = (socket.AF_INET6, "::1") if v6 else (socket.AF_INET, "127.0.0.1")
srv = socket.socket(fam); srv.bind((host, 0)); srv.listen(1)
cl = socket.socket(fam); cl.connect((host, srv.getsockname()[1]))
c, _ = srv.accept()
print(os.getpid(), srv.getsockname()[1], cl.getsockname()[1])
c.close(); cl.close(); srv.close()
PY
have_v6=1
python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0))' 2>/dev/null || have_v6=0

bt=0
if have bpftrace; then
	bpftrace -e 'tracepoint:sock:inet_sock_set_state
		/args->protocol == 6 && args->newstate == 1 && (args->oldstate == 2 || args->oldstate == 3)/
		{ printf("%s %d %d %d\n", args->oldstate == 2 ? "connect" : "accept",
		  args->family, args->sport, args->dport); }' >"$T/bt" 2>"$T/bt.err" &
	btpid=$!
	for i in $(seq 200); do grep -q Attaching "$T/bt" 2>/dev/null && break; sleep 0.1; done
	sleep 0.3   # bpftrace prints its line just before attaching
	grep -q Attaching "$T/bt" && bt=1
fi

tracer_start "$T/acc" "$T/acc.err" "$PERFKIT" tcpaccept -t || not_ok 'tcpaccept starts'
accpid=$TRACER_PID
if tracer_start "$T/out" "$T/err" "$PERFKIT" tcpconnect -L -U; then
	read -r pid4 sport4 cport4 < <(python3 "$T/conn.py" 4)
	[ $have_v6 = 1 ] && read -r pid6 sport6 cport6 < <(python3 "$T/conn.py" 6)
	sleep 0.3
	tracer_stop
	expect 'tcpconnect: Ctrl-C ends it with status 0' test $? = 0
	TRACER_PID=$accpid
	tracer_stop
	expect 'tcpaccept: Ctrl-C ends it with status 0' test $? = 0
	[ $bt = 1 ] && { kill -INT $btpid; wait $btpid; }
	sed 's/^/# /' "$T/out" "$T/acc"
	expect 'tcpconnect header (-U -L)' \
		grep -Eq '^UID +PID +COMM +IP +SADDR +LPORT +DADDR +DPORT$' "$T/out"
	expect 'tcpaccept header (-t)' \
		grep -Eq '^TIME\(s\) +PID +COMM +IP +RADDR +RPORT +LADDR +LPORT$' "$T/acc"
	n=$(grep -Ec "^$(id -u) +$pid4 +python3 +4 +127\.0\.0\.1 +$cport4 +127\.0\.0\.1 +$sport4\$" "$T/out")
	expect "tcpconnect: IPv4 connect seen once with both ports ($n)" test "$n" = 1
	n=$(grep -Ec "^[0-9.]+ +$pid4 +python3 +4 +127\.0\.0\.1 +$cport4 +127\.0\.0\.1 +$sport4\$" "$T/acc")
	expect "tcpaccept: IPv4 accept seen once with both ports ($n)" test "$n" = 1
	if [ $have_v6 = 1 ]; then
		n=$(grep -Ec "^$(id -u) +$pid6 +python3 +6 +::1 +$cport6 +::1 +$sport6\$" "$T/out")
		expect "tcpconnect: IPv6 connect seen once with both ports ($n)" test "$n" = 1
		n=$(grep -Ec "^[0-9.]+ +$pid6 +python3 +6 +::1 +$cport6 +::1 +$sport6\$" "$T/acc")
		expect "tcpaccept: IPv6 accept seen once with both ports ($n)" test "$n" = 1
	else
		skip 'no IPv6 loopback (::1)'
		skip 'no IPv6 loopback (::1)'
	fi
	if [ $bt = 1 ]; then
		sed 's/^/# bpftrace: /' "$T/bt"
		for v in 4 ${pid6:+6}; do
			eval "c=\$cport$v s=\$sport$v"
			f=$([ $v = 4 ] && echo 2 || echo 10)
			expect "bpftrace saw the same IPv$v connect ($c -> $s) once" \
				test "$(grep -c "^connect $f $c $s\$" "$T/bt")" = 1
			expect "bpftrace saw the same IPv$v accept ($s <- $c) once" \
				test "$(grep -c "^accept $f $s $c\$" "$T/bt")" = 1
		done
	else
		skip "bpftrace not installed or did not start: $(head -c 200 "$T/bt.err" 2>/dev/null)"
	fi
else
	not_ok 'tcpconnect starts'
fi

# -c: counts per address pair; -P filters on the remote port
if tracer_start "$T/cnt" "$T/cnt.err" "$PERFKIT" tcpconnect -c -4; then
	for i in 1 2 3; do python3 "$T/conn.py" 4 >/dev/null; done
	[ $have_v6 = 1 ] && python3 "$T/conn.py" 6 >/dev/null
	sleep 0.3
	tracer_stop
	sed 's/^/# /' "$T/cnt"
	expect "-c: bcc's header, the remote port a column of its own" grep -Eq '^LADDR +RADDR +RPORT +CONNECTS *$' "$T/cnt"
	n=$(awk '$1 == "127.0.0.1" && $2 == "127.0.0.1" && $3 ~ /^[0-9]+$/ { s += $4 } END { print s + 0 }' "$T/cnt")
	expect "-c -4: three IPv4 connections counted, no IPv6 ($n)" \
		test "$n" = 3 -a "$(grep -c '::1' "$T/cnt")" = 0
else
	not_ok 'tcpconnect -c starts'
fi

"$PERFKIT" tcpconnect -P 70000 >/dev/null 2>"$T/e1"
expect 'bad port: usage error (exit 2)' test $? = 2
expect 'bad port: the shared message' grep -q "^perfkit tcpconnect: -P expects ports 1..65535 separated by commas, got '70000'" "$T/e1"
"$PERFKIT" tcpaccept -4 -6 >/dev/null 2>&1
expect '-4 with -6: usage error' test $? = 2
"$PERFKIT" tcpaccept -L >/dev/null 2>&1
expect 'tcpaccept has no -L: usage error' test $? = 2
done_testing
