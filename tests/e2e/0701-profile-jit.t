#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit profile names JIT frames from /tmp/perf-PID.map (issue 17, item
# 6), as bcc's profile does: a process spinning in code it wrote to
# anonymous executable memory, with a perf map naming it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require
if [ "$(uname -m)" != x86_64 ] || ! have cc; then
	skip "needs x86-64 and cc (the JIT code is x86-64 machine code)"
	done_testing; exit
fi
cat >"$T/jit.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
int main(void)
{
	/* a loop: dec %rcx; jnz back; ret — run for ever from the caller */
	static const unsigned char code[] = { 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *f;

	if (p == MAP_FAILED)
		return 1;
	memcpy(p + 256, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx 100 jitted_pk_loop\n", (unsigned long)(p + 256));
	fclose(f);
	for (;;)
		((void (*)(unsigned long))(p + 256))(100000000UL);
}
C
cc -O1 -o "$T/jit" "$T/jit.c" || { skip "cc failed"; done_testing; exit; }
"$T/jit" &
pid=$!
sleep 0.3
timeout 20 "$PERFKIT" profile -F 199 -f -p $pid 1 >"$T/out" 2>"$T/err"
kill $pid; wait $pid 2>/dev/null
rm -f /tmp/perf-$pid.map
sort -t' ' -k2 -n -r "$T/out" | head -3 | sed 's/^/# /'
total=$(awk '{ n += $NF } END { print n + 0 }' "$T/out")
jit=$(awk '/;jitted_pk_loop( |;)/ { n += $NF } END { print n + 0 }' "$T/out")
expect "JIT frames named from /tmp/perf-PID.map ($jit of $total samples)" test "$jit" -gt $((total / 2))
done_testing
