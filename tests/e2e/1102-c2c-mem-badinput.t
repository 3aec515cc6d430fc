#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit c2c / mem on bad input (issue 18, acceptance 3): one clear line
# each, never a crash, never a half-written file:
#  - a program with one thread: "nothing shared";
#  - a program that cannot run: missing (127), not a program (126);
#  - a cut output file, an empty one, a binary one, a foreign text file,
#    a dangling reference; mem report on a c2c file;
#  - record never writes through a planted symbolic link.
. "$(dirname "$0")/lib.sh"

if ! have valgrind || ! ls "$PK_BUILD"/vgtool/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi
EX=$PK_BUILD/examples

# one_line 'description' WANT-RC WANT-REGEX cmd... — stdout+stderr together
one_line() {
	local d=$1 rc=$2 re=$3; shift 3
	"$@" >"$T/o" 2>&1
	local got=$?
	if [ "$got" = "$rc" ] && [ "$(wc -l <"$T/o")" = 1 ] && grep -Eq "$re" "$T/o"; then ok "$d: $(cat "$T/o")"
	else not_ok "$d (exit $got, want $rc)"; sed 's/^/# /' "$T/o" | head -5; fi
}

# a single-threaded program
"$PERFKIT" c2c record -o "$T/one.c2c" -- "$EX/listchase" array 1000 1 >/dev/null 2>&1
expect "c2c record of a single-threaded program writes its file" test -s "$T/one.c2c"
one_line "one thread: nothing shared" 0 '^perfkit c2c: nothing shared: .* a single thread' \
	"$PERFKIT" c2c report -i "$T/one.c2c"

# programs that cannot run
for c in c2c mem; do
	one_line "$c record of a missing program" 127 "^perfkit $c: '$T/nosuch': no such executable file$" \
		"$PERFKIT" $c record -o "$T/x.$c" -- "$T/nosuch"
	one_line "$c record of a missing command" 127 "^perfkit $c: 'no-such-command-pk': command not found$" \
		"$PERFKIT" $c record -o "$T/x.$c" -- no-such-command-pk
	head -c 64 /dev/zero >"$T/junk" && chmod +x "$T/junk"
	one_line "$c record of a file that is not a program" 126 "^perfkit $c: '$T/junk': cannot run it" \
		"$PERFKIT" $c record -o "$T/x.$c" -- "$T/junk"
	expect "$c: no output file left behind" test ! -e "$T/x.$c"
done

# cut, empty, binary, foreign files
"$PERFKIT" c2c record -o "$T/fs.c2c" -- "$EX/falseshare" shared 2000 >/dev/null 2>&1
n=$(wc -l <"$T/fs.c2c")
head -n $((n - 1)) "$T/fs.c2c" >"$T/cut1.c2c"       # the end record missing
# mid-record: half the file, moved back off a line's end (a cut there ends
# a whole record: the recording's lengths vary, the ASan build's did)
half=$(($(wc -c <"$T/fs.c2c") / 2))
while [ "$half" -gt 1 ] && [ "$(head -c "$half" "$T/fs.c2c" | tail -c 1 | od -An -tx1 | tr -d ' ')" = 0a ]; do
	half=$((half - 1))
done
head -c "$half" "$T/fs.c2c" >"$T/cut2.c2c"
: >"$T/empty.c2c"
head -c 300 "$EX/falseshare" >"$T/bin.c2c"
printf 'events: Ir\nsummary: 1\n' >"$T/cg.c2c"
sed 's/^line 0x\([0-9a-f]*\) [0-9]* /line 0x\1 999999 /' "$T/fs.c2c" >"$T/dangling.c2c"
one_line "cut before the end record" 1 "^perfkit c2c: $T/cut1.c2c: cut short after line $((n - 1)): expected the closing 'end' record" \
	"$PERFKIT" c2c report -i "$T/cut1.c2c"
one_line "cut in the middle of a record" 1 "^perfkit c2c: $T/cut2.c2c:[0-9]+: cut short in the middle of a record" \
	"$PERFKIT" c2c report -i "$T/cut2.c2c"
one_line "mem report of a cut file" 1 "^perfkit mem: $T/cut1.c2c: cut short" \
	"$PERFKIT" mem report -i "$T/cut1.c2c"
one_line "an empty file" 1 "^perfkit c2c: $T/empty.c2c: empty file" "$PERFKIT" c2c report -i "$T/empty.c2c"
one_line "a binary file" 1 "^perfkit c2c: $T/bin.c2c:1: expected" "$PERFKIT" c2c report -i "$T/bin.c2c"
one_line "a Cachegrind file" 1 "^perfkit c2c: $T/cg.c2c:1: expected 'perfkit-memprof 1'" \
	"$PERFKIT" c2c report -i "$T/cg.c2c"
one_line "a dangling object reference" 1 "^perfkit c2c: $T/dangling.c2c: line 0x[0-9a-f]+ refers to object 999999, never defined" \
	"$PERFKIT" c2c report -i "$T/dangling.c2c"
one_line "a missing file" 1 "^perfkit c2c: cannot open '$T/none.c2c'" "$PERFKIT" c2c report -i "$T/none.c2c"
one_line "mem report of a c2c recording" 1 "^perfkit mem: $T/fs.c2c: recorded by perfkit c2c record" \
	"$PERFKIT" mem report -i "$T/fs.c2c"

"$PERFKIT" mem record -o "$T/one.mem" -- "$EX/listchase" array 1000 1 >/dev/null 2>&1
one_line "c2c report of a mem recording" 1 "^perfkit c2c: $T/one.mem: recorded by perfkit mem record" \
	"$PERFKIT" c2c report -i "$T/one.mem"

# a program that forks: the child's own file does not stay behind in TMPDIR
cat >"$T/forker.c" <<'C'
#include <sys/wait.h>
#include <unistd.h>
int main(void) { pid_t p = fork(); if (p == 0) return 0; waitpid(p, 0, 0); return 0; }
C
if cc -o "$T/forker" "$T/forker.c" 2>/dev/null; then
	mkdir "$T/tmp"
	TMPDIR=$T/tmp "$PERFKIT" c2c record -o "$T/fork.c2c" -- "$T/forker" >/dev/null 2>&1
	expect "a forking program: its file written, nothing left in TMPDIR" \
		test -s "$T/fork.c2c" -a -z "$(ls -A "$T/tmp")"
else
	skip "no C compiler for the fork test"
fi

# the output-file rules: a planted link is not written through
echo keep >"$T/victim"
ln -s "$T/victim" "$T/link.c2c"
"$PERFKIT" c2c record -o "$T/link.c2c" -- "$EX/listchase" array 100 1 >/dev/null 2>"$T/link.err"
expect "record refuses to write through a symbolic link" test "$(cat "$T/victim")" = keep
expect "... and says so in one line" test "$(wc -l <"$T/link.err")" = 1

# killed while recording (SIGTERM, Ctrl-C): no temporary file left beside
# the output, as no half-written output (base/outfile.h)
mkdir -p "$T/killed"
"$PERFKIT" mem record -o "$T/killed/m.out" -- sleep 5 >/dev/null 2>&1 &
kp=$!
for _ in $(seq 50); do ls "$T/killed"/m.out.tmp* >/dev/null 2>&1 && break; sleep 0.1; done
expect "mem record writes through a temporary file" sh -c "ls '$T/killed'/m.out.tmp* >/dev/null 2>&1"
kill -TERM $kp; wait $kp 2>/dev/null
expect "... SIGTERM: it is removed ($(ls "$T/killed" | tr '\n' ' '))" test -z "$(ls -A "$T/killed")"
done_testing
