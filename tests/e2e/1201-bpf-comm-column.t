#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tcpconnect/tcpaccept print COMM in a 12-byte column: a hostile process
# name (ESC, newline) is escaped \xHH and the column never ends inside an
# escape ("\x1b[31mX\x0" read as a broken or different byte).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require
if ! have python3; then skip "no python3"; done_testing; exit; fi

cat >"$T/h.py" <<'PY'
import socket
open('/proc/self/comm', 'w').write('\x1b[31mX\nFAKE')
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)
c = socket.socket(); c.connect(s.getsockname()); a, _ = s.accept(); c.close(); a.close()
PY
for tool in tcpconnect tcpaccept; do
	if ! tracer_start "$T/$tool.out" "$T/$tool.err" "$PERFKIT" $tool; then
		not_ok "$tool starts"; continue
	fi
	python3 "$T/h.py"
	sleep 1
	tracer_stop
	line=$(grep -a "^[0-9]* *\\\\x1b" "$T/$tool.out" | head -1)
	comm=$(printf '%s\n' "$line" | awk '{print $2}')
	if [ -z "$line" ]; then
		not_ok "$tool: the hostile process's line is there"; sed 's/^/# /' "$T/$tool.out" | head -5
	elif grep -qa $'\033' "$T/$tool.out"; then
		not_ok "$tool: a raw ESC reached the output"
	elif [ "$comm" = '\x1b[31mX' ]; then
		ok "$tool: COMM '$comm' (cut before the escape that does not fit)"
	else
		not_ok "$tool: COMM column '$comm' (want '\\x1b[31mX')"
	fi
done
done_testing
