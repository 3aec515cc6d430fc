#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The build's guards: scripts/check-layers passes on this tree and refuses,
# with FILE:LINE, an include against the layer order planted in a copy of it
# (a library including a command's header, base including a library, a new
# lib -> lib edge that would make a cycle); base/banned.h turns a call of a
# banned libc function into a compile error.
. "$(dirname "$0")/lib.sh"

if ! have python3; then skip "no python3"; done_testing; exit; fi
CL="$TOP/scripts/check-layers"
expect "the tree keeps the layer order" "$CL" "$TOP"

cp -r "$TOP/src" "$T/src"
"$CL" "$T" >"$T/out" 2>&1
expect "... and so does its copy" test $? = 0

printf '#include "cmd/cmds.h"\n' >>"$T/src/lib/stats/stats.c"
n=$(wc -l <"$T/src/lib/stats/stats.c")
"$CL" "$T" >"$T/out" 2>&1
expect "a library including a command's header: exit 1" test $? = 1
expect "... names the file and line" grep -q "^src/lib/stats/stats.c:$n: " "$T/out"

cp "$TOP/src/lib/stats/stats.c" "$T/src/lib/stats/stats.c"
printf '#include "symbol/symbol.h"\n' >>"$T/src/lib/base/strbuf.c"
n=$(wc -l <"$T/src/lib/base/strbuf.c")
"$CL" "$T" >"$T/out" 2>&1
expect "base including a library: exit 1" test $? = 1
expect "... names the file and line" grep -q "^src/lib/base/strbuf.c:$n: .*base/ includes only base/" "$T/out"

cp "$TOP/src/lib/base/strbuf.c" "$T/src/lib/base/strbuf.c"
printf '#include "stack/folded.h"\n' >>"$T/src/lib/session/session.h"
n=$(wc -l <"$T/src/lib/session/session.h")
"$CL" "$T" >"$T/out" 2>&1
expect "session including stack (stack includes session): exit 1" test $? = 1
expect "... names the file and line" grep -q "^src/lib/session/session.h:$n: 'session' includes \"stack/folded.h\"" "$T/out"

cp "$TOP/src/lib/session/session.h" "$T/src/lib/session/session.h"
mkdir -p "$T/src/lib/newmod"
printf '#include "base/strbuf.h"\n' >"$T/src/lib/newmod/x.c"
"$CL" "$T" >"$T/out" 2>&1
expect "a new module without a line in the table: exit 1" test $? = 1
expect "... says so" grep -q "src/lib/newmod/x.c:1: library module 'newmod' has no line" "$T/out"

# banned.h: a strcpy call does not compile, its snprintf replacement does
if have cc; then
	printf '#include <string.h>\nvoid f(char *d) { strcpy(d, "x"); }\n' >"$T/b.c"
	cc -I"$TOP/src/lib" -include base/banned.h -c -o "$T/b.o" "$T/b.c" 2>"$T/err"
	expect "banned.h: strcpy does not compile" test $? != 0
	expect "... and the error says it is banned" grep -q "sorry_strcpy_is_a_banned_function" "$T/err"
	printf '#include <stdio.h>\n#include <time.h>\nvoid f(char *d, time_t t) { struct tm tm; localtime_r(&t, &tm); snprintf(d, 4, "x"); }\n' >"$T/g.c"
	expect "... localtime_r and snprintf compile" cc -Wall -Werror -I"$TOP/src/lib" -include base/banned.h -c -o "$T/g.o" "$T/g.c"
	for fn in 'sprintf(d, "x")' 'strtok(d, ",")' 'localtime(0)' 'strcat(d, "x")'; do
		printf '#include <string.h>\n#include <stdio.h>\n#include <time.h>\nvoid f(char *d) { (void)%s; }\n' "$fn" >"$T/c.c"
		cc -I"$TOP/src/lib" -include base/banned.h -c -o "$T/c.o" "$T/c.c" 2>/dev/null
		expect "... $fn does not compile" test $? != 0
	done
else
	skip "no cc"
fi
done_testing
