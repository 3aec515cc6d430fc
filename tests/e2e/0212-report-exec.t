# SPDX-License-Identifier: GPL-2.0-or-later
# Samples around exec and symbol aliases (issue 17, item 5), on a shell
# loop of /bin/true: a sample inside execve keeps the old image's user
# frame (perf: __GI___execve in the old libc, not [unknown]); --sort pid
# names a thread by its last comm; of two kernel symbols at one address
# the one perf keeps is shown (__x64_sys_vfork, not __ia32_sys_vfork).
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then
	skip "needs perf_event_open"; done_testing; exit
fi
cd "$T"
"$PERFKIT" record -F 20000 -g -o ex.data -- sh -c 'i=0; while [ $i -lt 600 ]; do /bin/true; i=$((i+1)); done' >/dev/null 2>rec.err
if [ ! -s ex.data ]; then
	skip "record failed: $(head -1 rec.err)"; done_testing; exit
fi
"$PERFKIT" script -i ex.data >pk.txt 2>/dev/null
# the user frame right under the kernel's syscall entry of a sample in
# execve: a libc frame (execve / __GI___execve), never [unknown]
awk '/^[^ \t]/ { k = 0; next } /do_execveat_common/ { k = 1 } k && /entry_SYSCALL_64/ { want = 1; next }
     want { print; want = 0; k = 0 }' pk.txt >exec_user.txt
n=$(wc -l <exec_user.txt)
if [ "$n" -lt 5 ]; then
	skip "only $n samples inside execve"
else
	# (late in execve the new image's ld.so _start is the user frame)
	bad=$(grep -c '\[unknown\]' exec_user.txt)
	expect "inside execve: the user frame is named ($bad of $n [unknown])" test "$bad" -le $((n / 50))
	expect "inside execve: most user frames are in the old image's libc" \
		test "$(grep -c 'libc' exec_user.txt)" -ge $((n / 2))
fi

"$PERFKIT" report -i ex.data --sort pid --no-children -g none >pid.txt 2>/dev/null
rows=$(grep -Ec '^ +[0-9.]+% +[0-9]+:' pid.txt)
sh_rows=$(grep -Ec '^ +[0-9.]+% +[0-9]+:sh *$' pid.txt)
expect "--sort pid: the forked children read :true, only the shell :sh ($sh_rows of $rows rows)" test "$sh_rows" -le 1
expect "--sort pid: children named true" grep -Eq '^ +[0-9.]+% +[0-9]+:true *$' pid.txt
if have perf; then
	perf report -i ex.data --stdio --no-children --sort pid -g none 2>/dev/null | grep -v '^#' | grep . | sed 's/ *$//' >perf.pid
	grep -v '^#' pid.txt | grep . | sed 's/ *$//' >pk.pid
	same_file '--sort pid: the rows perf report shows' perf.pid pk.pid
fi

if k=$(awk '$3 == "__ia32_sys_vfork" { a = $1 } $3 == "__x64_sys_vfork" { b = $1 } END { if (a != "" && a == b) print a }' /proc/kallsyms 2>/dev/null) && [ -n "$k" ] && [ "$k" != 0000000000000000 ]; then
	expect 'vfork: never named __ia32_sys_vfork in a 64-bit process' sh -c "! grep -q __ia32_sys_vfork pk.txt"
	expect 'vfork: named __x64_sys_vfork, as perf' grep -q __x64_sys_vfork pk.txt
else
	skip "kallsyms has no __ia32_sys_vfork alias here (or hides addresses)"
fi
done_testing
