/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * execlit — execs /bin/echo with string literals right after it starts,
 * before anything has read them: at sys_enter_execve the strings are in
 * pages of this program's .rodata that are often not yet mapped, which
 * bpf_probe_read_user cannot fault in (execsnoop's test for argv taken
 * from the new process instead).
 *   execlit     execl("/bin/echo", "/bin/echo", "lit-one", "", "lit two", NULL)
 */
#include <unistd.h>

int main(void)
{
	execl("/bin/echo", "/bin/echo", "lit-one", "", "lit two", (char *)NULL);
	return 127;
}
