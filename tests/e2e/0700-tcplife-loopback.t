#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit tcplife: a loopback TCP session (127.0.0.1 only) shows up for
# both ends with the exact data bytes each side sent (-B), ports and PID.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require
if ! have python3; then skip 'python3 not installed'; done_testing; exit 0; fi

cat >"$T/conn.py" <<'PY'
import os, socket, threading
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
port = srv.getsockname()[1]
def serve():
    c, _ = srv.accept()
    got = 0
    while got < 12345:
        b = c.recv(65536)
        if not b: break
        got += len(b)
    c.sendall(b"y" * 678)
    c.recv(1)          # until the client closes
    c.close()
t = threading.Thread(target=serve); t.start()
cl = socket.create_connection(("127.0.0.1", port))
cl.sendall(b"x" * 12345)
got = 0
while got < 678:
    got += len(cl.recv(65536))
cl.close(); t.join(); srv.close()
print(os.getpid(), port)
PY
if tracer_start "$T/out" "$T/err" "$PERFKIT" tcplife -B; then
	read -r pid port _ < <(python3 "$T/conn.py")
	sleep 0.2
	tracer_stop
	expect 'Ctrl-C ends it with status 0' test $? = 0
	grep -E "^PID| $port " "$T/out" | sed 's/^/# /'
	expect 'header with byte columns' grep -Eq '^PID +COMM +LADDR +LPORT +RADDR +RPORT +TX_B +RX_B +MS$' "$T/out"
	expect 'client end: sent 12345, received 678, 127.0.0.1 both sides' \
		grep -Eq "^$pid +[^ ]+ +127\.0\.0\.1 +[0-9]+ +127\.0\.0\.1 +$port +12345 +678 +[0-9.]+\$" "$T/out"
	expect 'server end: sent 678, received 12345' \
		grep -Eq "^$pid +[^ ]+ +127\.0\.0\.1 +$port +127\.0\.0\.1 +[0-9]+ +678 +12345 +[0-9.]+\$" "$T/out"
else
	not_ok 'tcplife starts'
fi
"$PERFKIT" tcplife -L 70000 >/dev/null 2>&1
expect 'bad port: usage error (exit 2)' test $? = 2
done_testing
