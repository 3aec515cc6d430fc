#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bpf-overhead — what does each eBPF tracer cost the traced workload?  For
# every tool, a workload that fires its event heavily runs untraced, under
# `perfkit <tool>` and under bpftrace doing the same job (Debian's bpftrace;
# skipped with a message if absent), interleaved, RUNS times each; the
# median wall time of the workload alone (tracer start-up excluded) is
# printed with the slowdown against the untraced run.
#   exec loop      N x /bin/true from bash            execsnoop   / sys_enter_execve + join(argv)
#   open loop      N x open+close of one file          opensnoop   / sys_{enter,exit}_openat
#   direct I/O     dd N x 4 KiB oflag=direct            biolatency  / block_rq_{issue,complete} hist
#   tight calls    N calls of a tiny function           funclatency / uprobe+uretprobe hist
#   CPU loop       ~1 s of calls, sampled at 99 Hz      profile     / profile:hz:99 stacks
#   connect loop   N loopback connect+accept            tcpconnect  / inet_sock_set_state SYN_SENT->
#   connect loop   (the same)                           tcpaccept   / inet_sock_set_state SYN_RECV->ESTABLISHED
#   switch loop    N pipe ping-pongs of two processes   offcputime  / sched_switch stacks, sum of off-CPU time
#   switch loop    (the same)                           runqlat     / sched_wakeup{,_new}, sched_switch hist
#   direct I/O     (as above)                           biosnoop    / block_rq_{issue,complete} printf
#   exec loop      (as above)                           profile --continuous -F 19 / profile:hz:19 stacks
# The last columns give the time each tracer adds per traced event (µs).
# Needs root.  Usage: bench/bpf-overhead.sh [BUILD] [RUNS]; WORKLOADS="conn
# offcpu ..." runs only those.
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-3}
PK=$(cd "$BUILD" && pwd)/perfkit
TMP=$(mktemp -d)
TRACER=
cleanup() { [ -n "$TRACER" ] && kill -INT "$TRACER" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

if [ "$(id -u)" != 0 ]; then
	echo "bpf-overhead: needs root (CAP_BPF and CAP_PERFMON); skipped" >&2
	exit 0
fi
have_bt=1
command -v bpftrace >/dev/null 2>&1 || { have_bt=0; echo "bpf-overhead: bpftrace not installed: its column is skipped (apt-get install bpftrace)" >&2; }

cat >"$TMP/bpfbench.c" <<'C'
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
volatile unsigned long sink;
__attribute__((noinline)) unsigned long bench_target(unsigned long x) { sink += x; return sink; }
int main(int argc, char **argv) {
	long n = atol(argv[2]);
	if (!strcmp(argv[1], "open")) {
		for (long i = 0; i < n; i++) { int fd = open(argv[3], O_RDONLY); if (fd >= 0) close(fd); }
	} else if (!strcmp(argv[1], "calls")) {
		for (long i = 0; i < n; i++) bench_target((unsigned long)i);
	} else if (!strcmp(argv[1], "connect")) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t al = sizeof(a);
		int l = socket(AF_INET, SOCK_STREAM, 0);
		bind(l, (struct sockaddr *)&a, sizeof(a)); listen(l, 64); getsockname(l, (struct sockaddr *)&a, &al);
		for (long i = 0; i < n; i++) {
			int c = socket(AF_INET, SOCK_STREAM, 0);
			connect(c, (struct sockaddr *)&a, sizeof(a));
			int s = accept(l, NULL, NULL);
			close(s); close(c);
		}
	} else if (!strcmp(argv[1], "switch")) {
		int p1[2], p2[2]; char b = 0;
		if (pipe(p1) || pipe(p2)) return 1;
		if (fork() == 0) { while (read(p1[0], &b, 1) == 1) write(p2[1], &b, 1); _exit(0); }
		for (long i = 0; i < n; i++) { write(p1[1], &b, 1); read(p2[0], &b, 1); }
		close(p1[1]); wait(NULL);
	}
	return 0;
}
C
cc -O1 -fno-inline -o "$TMP/bpfbench" "$TMP/bpfbench.c"
B=$TMP/bpfbench
: >"$TMP/file"
cat >"$TMP/spin.sh" <<'SH'
end=$((SECONDS + 1)); while [ $SECONDS -lt $end ]; do :; done
SH

wl_exec()  { bash -c 'for ((i = 0; i < 1000; i++)); do /bin/true; done'; }
wl_open()  { "$B" open 200000 "$TMP/file"; }
wl_dio()   { dd if=/dev/zero of="$TMP/dio" bs=4k count=10000 oflag=direct 2>/dev/null; }
wl_calls() { "$B" calls 50000; }
wl_spin()  { "$B" calls 300000000; }
wl_conn()  { "$B" connect 5000; }
wl_acc()   { wl_conn; }
wl_offcpu() { "$B" switch 50000; }
wl_runq()  { wl_offcpu; }
wl_bio()   { wl_dio; }
wl_cont()  { wl_exec; }

bt_exec='tracepoint:syscalls:sys_enter_execve { printf("%d ", pid); join(args->argv); }'
bt_open='tracepoint:syscalls:sys_enter_openat { @f[tid] = args->filename; }
tracepoint:syscalls:sys_exit_openat /@f[tid]/ { printf("%d %s %d\n", pid, str(@f[tid]), args->ret); delete(@f[tid]); }'
bt_dio='tracepoint:block:block_rq_issue { @s[args->dev, args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@s[args->dev, args->sector]/ { @us = hist((nsecs - @s[args->dev, args->sector]) / 1000); delete(@s[args->dev, args->sector]); }'
bt_calls="uprobe:$B:bench_target { @s[tid] = nsecs; } uretprobe:$B:bench_target /@s[tid]/ { @ns = hist(nsecs - @s[tid]); delete(@s[tid]); }"
bt_spin='profile:hz:99 /comm == "bpfbench"/ { @[ustack, kstack] = count(); }'
bt_conn='tracepoint:sock:inet_sock_set_state /args->protocol == 6 && args->oldstate == 2/ { printf("%d %s %d %d %d\n", pid, comm, args->family, args->sport, args->dport); }'
bt_acc='tracepoint:sock:inet_sock_set_state /args->protocol == 6 && args->oldstate == 3 && args->newstate == 1/ { printf("%d %d %d\n", args->family, args->sport, args->dport); }'
bt_offcpu='tracepoint:sched:sched_switch { if (tid) { @ts[tid] = nsecs; @ks[tid] = kstack; @us[tid] = ustack; } $n = args->next_pid; $t = @ts[$n]; if ($t) { @[@ks[$n], @us[$n], args->next_comm] = sum((nsecs - $t) / 1000); delete(@ts[$n]); } }'
bt_runq='tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new { @q[args->pid] = nsecs; }
tracepoint:sched:sched_switch { if (args->prev_state == 0) { @q[args->prev_pid] = nsecs; } $t = @q[args->next_pid]; if ($t) { @usecs = hist((nsecs - $t) / 1000); delete(@q[args->next_pid]); } }'
bt_bio='tracepoint:block:block_rq_issue { @s[args->dev, args->sector] = nsecs; @c[args->dev, args->sector] = comm; }
tracepoint:block:block_rq_complete /@s[args->dev, args->sector]/ { printf("%s %d %d %d\n", @c[args->dev, args->sector], args->dev, args->sector, (nsecs - @s[args->dev, args->sector]) / 1000); delete(@s[args->dev, args->sector]); delete(@c[args->dev, args->sector]); }'
bt_cont='profile:hz:19 { @[ustack, kstack, pid, comm] = count(); }'

pk_exec=(execsnoop)
pk_open=(opensnoop)
pk_dio=(biolatency)
pk_calls=(funclatency "$B:bench_target")
pk_spin=(profile -F 99)
pk_conn=(tcpconnect)
pk_acc=(tcpaccept)
pk_offcpu=(offcputime)
pk_runq=(runqlat)
pk_bio=(biosnoop)
pk_cont=(profile --continuous --output-dir "$TMP/cont" --interval 1)

# timed WL — wall seconds of the workload function WL
timed() {
	local t0 t1
	t0=$(date +%s.%N); "$1" >/dev/null; t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}

# start_tracer READY-PATTERN CMD... — background it, wait until attached
start_tracer() {
	local pat=$1 i; shift
	"$@" >"$TMP/trace.out" 2>&1 &
	TRACER=$!
	for i in $(seq 300); do
		grep -q "$pat" "$TMP/trace.out" 2>/dev/null && break
		kill -0 "$TRACER" 2>/dev/null || { echo "bpf-overhead: '$*' failed:" >&2; cat "$TMP/trace.out" >&2; exit 1; }
		sleep 0.1
	done
	sleep 0.3   # bpftrace prints its line before attaching
}
stop_tracer() { kill -INT "$TRACER" 2>/dev/null; wait "$TRACER" 2>/dev/null || true; TRACER=; }

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

printf '%-26s %-20s %9s %16s %16s %10s %10s\n' "workload (median of $RUNS)" "tool" "native s" "perfkit s" "bpftrace s" "pk us/ev" "bt us/ev"
for w in ${WORKLOADS:-exec open dio calls spin conn acc offcpu runq bio cont}; do
	: >"$TMP/n"; : >"$TMP/p"; : >"$TMP/b"
	eval "pk=(\"\${pk_$w[@]}\")"
	bt=bt_$w
	for ((r = 0; r < RUNS; r++)); do
		timed wl_$w >>"$TMP/n"
		start_tracer 'Hit Ctrl-C' "$PK" "${pk[@]}"
		timed wl_$w >>"$TMP/p"
		stop_tracer
		if [ $have_bt = 1 ]; then
			start_tracer 'Attaching' bpftrace -e "${!bt}"
			timed wl_$w >>"$TMP/b"
			stop_tracer
		fi
	done
	n=$(median <"$TMP/n"); p=$(median <"$TMP/p")
	b=$([ $have_bt = 1 ] && median <"$TMP/b" || echo "")
	case $w in
	exec) label="exec loop (1000 execs)"; ev=1000;; open) label="open loop (200k opens)"; ev=200000;;
	dio) label="direct I/O (10k x 4 KiB)"; ev=10000;; calls) label="tight calls (50k)"; ev=50000;;
	spin) label="CPU loop (300M calls)"; ev=0;;
	conn) label="connect loop (5k)"; ev=5000;; acc) label="connect loop (5k)"; ev=5000;;
	offcpu) label="switch loop (50k)"; ev=100000;; runq) label="switch loop (50k)"; ev=100000;;
	bio) label="direct I/O (10k x 4 KiB)"; ev=10000;; cont) label="exec loop, 19 Hz continuous"; ev=0;;
	esac
	tool=${pk[0]}
	case $w in cont) tool="profile --continuous";; esac
	awk -v l="$label" -v t="$tool" -v n="$n" -v p="$p" -v b="$b" -v ev=$ev 'BEGIN {
		printf "%-26s %-20s %9.3f %8.3f (%+5.0f%%)", l, t, n, p, (p / n - 1) * 100
		if (b != "") printf " %8.3f (%+5.0f%%)", b, (b / n - 1) * 100; else printf " %16s", "skipped"
		if (ev) printf " %10.2f", (p - n) / ev * 1e6; else printf " %10s", "-"
		if (ev && b != "") printf " %10.2f", (b - n) / ev * 1e6; else printf " %10s", "-"
		printf "\n" }'
done
