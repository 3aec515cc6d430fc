# SPDX-License-Identifier: GPL-2.0-or-later
# bpf-lib.sh — helpers for the eBPF tools' end-to-end tests (0700-*.t);
# source it after lib.sh.
#   bpf_require            skip the whole test (with the reason) unless we are
#                          root, the kernel has BTF (/sys/kernel/btf/vmlinux)
#                          and perfkit was built with the eBPF tools
#   tracer_start OUT ERR CMD...   run a tracer in the background (TRACER_PID),
#                          wait until its "Hit Ctrl-C" banner is on ERR;
#                          fails if it exited first or took over 20 s
#   tracer_stop            Ctrl-C it (SIGINT) and wait; returns its status

bpf_require() {
	local why=
	if [ "$(id -u)" != 0 ]; then
		why="needs root (CAP_BPF and CAP_PERFMON)"
	elif [ ! -r /sys/kernel/btf/vmlinux ]; then
		why="kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF=y)"
	elif "$PERFKIT" execsnoop --help 2>&1 | grep -q 'built without eBPF support'; then
		why=$("$PERFKIT" execsnoop --help 2>&1 | sed 's/^perfkit execsnoop: //')
	fi
	if [ -n "$why" ]; then
		skip "$why"
		done_testing
		exit 0
	fi
}

tracer_start() {
	local out=$1 err=$2 i
	shift 2
	"$@" >"$out" 2>"$err" &
	TRACER_PID=$!
	for i in $(seq 200); do
		grep -q 'Hit Ctrl-C' "$err" 2>/dev/null && return 0
		kill -0 "$TRACER_PID" 2>/dev/null || { wait "$TRACER_PID"; diag "$(cat "$err")"; return 1; }
		sleep 0.1
	done
	diag "tracer did not start in 20 s: $(cat "$err")"
	return 1
}

tracer_stop() {
	local rc
	kill -INT "$TRACER_PID" 2>/dev/null
	wait "$TRACER_PID"
	rc=$?
	TRACER_PID=
	return $rc
}
