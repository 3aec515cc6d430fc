/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jitnames NAME [REPEAT [COMM]]: spins ~300 ms in code copied to anonymous
 * executable memory that /tmp/perf-PID.map names NAME (then REPEAT letters
 * A..Z more, for very long names), after setting its comm to COMM (prctl
 * PR_SET_NAME: 15 bytes, any but NUL).  The map file is left for the
 * reader of the recording; the caller removes it.  Hostile-name tests
 * (0403).  On other than x86-64 it only writes the map and spins in main. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double end = now_ms() + 300;
	/* dec %rdi; jnz back; ret */
	static const unsigned char code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	size_t rep = argc > 2 ? (size_t)atol(argv[2]) : 0;
	FILE *f;

	if (argc < 2 || p == MAP_FAILED)
		return 2;
	memcpy(p, code, sizeof(code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx %s", (unsigned long)p, sizeof(code), argv[1]);
	for (size_t i = 0; i < rep; i++)
		fputc('A' + (int)(i % 26), f);
	fputc('\n', f);
	if (fclose(f))
		return 1;
	if (argc > 3)
		prctl(PR_SET_NAME, argv[3], 0, 0, 0);
	while (now_ms() < end) {
#if defined(__x86_64__)
		((void (*)(unsigned long))p)(1000000);
#endif
	}
	return 0;
}
