/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * forkexec — exercises comm and map attribution across fork, exec and
 * threads.  The parent starts a thread that runs thread_spin(), and forks a
 * child that first runs child_spin() (still the parent's image and comm),
 * then execs /bin/sh -c 'loop' (the shell's image; comm "sh").  The parent
 * itself runs parent_spin().  Each phase burns CPU for about MS milliseconds.
 *   forkexec [MS]   (default 300)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;
static double phase_ms;

static double thread_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define SPIN_BODY                                                             \
	double end = thread_cpu_now() + phase_ms / 1e3;                       \
	uint64_t x = sink;                                                    \
	while (thread_cpu_now() < end)                                        \
		for (int i = 0; i < 100000; i++)                              \
			x = x * 6364136223846793005ULL + 1;                    \
	sink = x;

__attribute__((noinline)) void parent_spin(void) { SPIN_BODY }
__attribute__((noinline)) void child_spin(void) { SPIN_BODY }
__attribute__((noinline)) void thread_spin(void) { SPIN_BODY }

static void *thread_main(void *arg)
{
	(void)arg;
	thread_spin();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;
	char loop[128];

	phase_ms = argc > 1 ? atof(argv[1]) : 300;
	/* the shell loop: about as long as a phase (busy arithmetic in sh) */
	snprintf(loop, sizeof(loop), "i=0; while [ $i -lt %d ]; do i=$((i+1)); done",
		 (int)(phase_ms * 1000));
	if (pthread_create(&th, NULL, thread_main, NULL)) {
		perror("forkexec: pthread_create");
		return 1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("forkexec: fork");
		return 1;
	}
	if (pid == 0) {
		child_spin();
		execl("/bin/sh", "sh", "-c", loop, (char *)NULL);
		perror("forkexec: exec /bin/sh");
		_exit(127);
	}
	parent_spin();
	pthread_join(th, NULL);
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
