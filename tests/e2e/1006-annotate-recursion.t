#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 1006 — annotate on a recursive function (rec calls itself 4 deep, then
# burn): its share "with its callees" counts each sample once, so it is
# report's Children of rec (it added each recursive call site's share: a
# sample 4 deep counted 4 times); its self call names the function alone,
# "<rec>", as objdump (not "<rec+0>"); the browser's index (the unit test
# test_leaves) counts as annotate does.
. "$(dirname "$0")/lib.sh"
perf_event_require
cat >"$T/rec.c" <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
/* a leaf gets no frame (its caller would be lost to a frame-pointer
 * unwind): burn calls step */
__attribute__((noinline)) void step(void) { __asm__ volatile(""); }
__attribute__((noinline)) void burn(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink = sink * 6364136223846793005UL + 1;
	step();
}
__attribute__((noinline)) void rec(int n)
{
	if (n > 0)
		rec(n - 1);
	burn();
	__asm__ volatile("" ::: "memory");   /* a call, not a jump */
}
int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 3000;

	for (long i = 0; i < rounds; i++)
		rec(4);
	return 0;
}
C
cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$T/rec" "$T/rec.c" || { not_ok "build rec.c"; done_testing; exit; }
"$PERFKIT" record -g -F 999 -o "$T/p.data" -- "$T/rec" 3000 >/dev/null 2>&1
"$PERFKIT" annotate --stdio -i "$T/p.data" rec >"$T/ann" 2>"$T/ann.err"
expect "annotate rec: exit 0" test $? = 0
with=$(sed -n 's/.*  [0-9.]*% of all samples, \([0-9.]*\)% with its callees.*/\1/p' "$T/ann" | head -1)
children=$("$PERFKIT" report --stdio -i "$T/p.data" --sort sym -g none 2>/dev/null |
	awk '$NF == "rec" && $(NF-1) == "[.]" { sub(/%/, "", $1); print $1; exit }')
diag "rec: ${with:-?}% with its callees, Children ${children:-?}%"
expect "rec's share with its callees is its Children (each sample once)" \
	test -n "$with" -a "$with" = "$children"
expect "its self call names it alone: <rec>" grep -qE 'call[q]? +0x[0-9a-f]+ <rec>' "$T/ann"
expect "... not <rec+0>" bash -c "! grep -q '<rec+0>' '$T/ann'"
done_testing
