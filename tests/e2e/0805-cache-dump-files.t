#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit cache's dump files (OUT.1, OUT.2… written by the Valgrind tool on
# PERFKIT_CACHE_DUMP()) follow the output-file rules: a symbolic link
# planted at OUT.1 is not written through (its target keeps its content, a
# dangling one is not created), the files are written whole under a
# temporary name and renamed (no temporary left), and created 0600.
. "$(dirname "$0")/lib.sh"

if ! have valgrind || ! ls "$PK_BUILD"/vgtool/lib/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi
cat >"$T/d.c" <<'EOF2'
#include "perfkit_cache.h"
int main(void)
{
	PERFKIT_CACHE_DUMP();
	PERFKIT_CACHE_DUMP();
	return 0;
}
EOF2
cc -O1 -g -I"$TOP/src/vgtool" -o "$T/d" "$T/d.c" || { not_ok "build d.c"; done_testing; exit; }

mkdir "$T/w"
echo precious >"$T/victim"
ln -s "$T/victim" "$T/w/out.1"            # planted: OUT.1 -> an existing file
ln -s "$T/created-by-link" "$T/w/out.2"   # planted: a dangling link
(umask 022; "$PERFKIT" cache -q -o "$T/w/out" "$T/d" >/dev/null 2>"$T/err")
expect "the victim behind out.1 is untouched" test "$(cat "$T/victim")" = precious
expect "the dangling link's target was not created" test ! -e "$T/created-by-link"
expect "out.1 is still the planted link (refused, not replaced)" test -L "$T/w/out.1"
expect "... and the refusal is said" grep -q "out.1' is a symbolic link" "$T/err"
expect "the main output was written" test -s "$T/w/out"
expect "no temporary file left" test -z "$(ls "$T/w" | grep tmp)"

mkdir "$T/v"
(umask 022; "$PERFKIT" cache -q -o "$T/v/out" "$T/d" >/dev/null 2>"$T/err2")
expect "without links: out.1 and out.2 written" test -s "$T/v/out.1" -a -s "$T/v/out.2"
expect "... as regular files, mode 0600" test "$(stat -c %a "$T/v/out.1") $(stat -c %a "$T/v/out.2")" = "600 600"
expect "... with a summary line (written whole)" grep -q '^summary:' "$T/v/out.2"
expect "... no temporary file left" test -z "$(ls "$T/v" | grep tmp)"
echo old >"$T/v/out.1"
"$PERFKIT" cache -q -o "$T/v/out" "$T/d" >/dev/null 2>&1
expect "an existing out.1 is replaced whole" grep -q '^summary:' "$T/v/out.1"

# valgrind's %p, %q{VAR} and %% in the output's name (cachegrind.out.%p):
# the simulated process's id, the variable's value, a '%'; the dumps'
# names too (the tool expands them); another '%' form or an unset
# variable: a usage error before any run
mkdir "$T/p"
(cd "$T/p" && "$PERFKIT" cache -q -o 'cachegrind.out.%p' "$T/d" >/dev/null 2>"$T/err")
f=$(ls "$T/p" | grep -E '^cachegrind\.out\.[0-9]+$' | head -1)
expect "-o cachegrind.out.%p: the process's id in the name (${f:-none})" test -n "$f"
expect "... its dumps too, by the same id" test -s "$T/p/$f.1" -a -s "$T/p/$f.2"
(cd "$T/p" && PKVAR=abc "$PERFKIT" cache -q --cachegrind-out-file='x.%q{PKVAR}.%%.out' "$T/d" >/dev/null 2>&1)
expect "--cachegrind-out-file=x.%q{PKVAR}.%%.out: x.abc.%.out" test -s "$T/p/x.abc.%.out"
(cd "$T/p" && "$PERFKIT" cache -q -o 'y.%z' "$T/d" >/dev/null 2>"$T/err")
expect "-o y.%z: a usage error (2) naming the form" sh -c "[ $? -eq 2 ] && grep -q \"'%z'\" '$T/err'"
(cd "$T/p" && env -u PKNOPE "$PERFKIT" cache -q -o 'y.%q{PKNOPE}' "$T/d" >/dev/null 2>"$T/err")
expect "-o y.%q{PKNOPE} unset: a usage error (2) naming it" sh -c "[ $? -eq 2 ] && grep -q 'PKNOPE is not set' '$T/err'"
expect "... no file left behind" test -z "$(ls "$T/p" | grep '^y')"
done_testing
