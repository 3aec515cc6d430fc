/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anonexec [MS]: spins MS milliseconds (default 300) in code it copied to
 * anonymous executable memory, with no /tmp/perf-PID.map naming it (JIT
 * code a profiler cannot name).  On other than x86-64 it spins in main. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double end = now_ms() + (argc > 1 ? atof(argv[1]) : 300);
#if defined(__x86_64__)
	/* dec %rdi; jnz back; ret */
	static const unsigned char code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	memcpy(p + 128, code, sizeof(code));
	while (now_ms() < end)
		((void (*)(unsigned long))(p + 128))(1000000UL);
#else
	volatile unsigned long sink = 0;

	while (now_ms() < end)
		for (unsigned long i = 0; i < 1000000UL; i++)
			sink += i;
#endif
	return 0;
}
