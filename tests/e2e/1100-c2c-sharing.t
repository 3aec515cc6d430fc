#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit c2c record/report on the sharing examples (issue 18, acceptance 1):
#  - falseshare shared: its line ranks first, classified false sharing, with
#    both threads (their tids, as the record file lists them) and both
#    source lines (bump_a's and bump_b's increments) named and the padding
#    suggestion given;
#  - falseshare padded: no line reaches the report's threshold;
#  - lockcount: the counter's line is true sharing;
#  - readmostly: the table is not flagged, and is named read-mostly.
# Counts are simulated (no host dependence); 20 000 iterations keep it short.
. "$(dirname "$0")/lib.sh"

if ! have valgrind || ! ls "$PK_BUILD"/vgtool/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi
EX=$PK_BUILD/examples
SRC=$TOP/examples/falseshare.c
LA=$(grep -n 'the worker.s counter' "$SRC" | cut -d: -f1)
LB=$(grep -n 'the main thread.s counter' "$SRC" | cut -d: -f1)

# the examples themselves, natively: right results, usage errors
expect "lockcount 1000 3 counts 3000" sh -c '[ "$("$1/lockcount" 1000 3)" = "lockcount: 3000" ]' sh "$EX"
expect "listchase list and array sum alike" \
	sh -c '[ "$("$1/listchase" list 1000 2 | cut -d" " -f2-)" = "$("$1/listchase" array 1000 2 | cut -d" " -f2-)" ]' sh "$EX"
expect "readmostly runs" sh -c '"$1/readmostly" 1000 2 | grep -q "^readmostly: [0-9]"' sh "$EX"
for p in "lockcount 0" "readmostly 1 0" "listchase bogus"; do
	# shellcheck disable=SC2086
	"$EX"/$p >/dev/null 2>&1
	expect "$p: usage error (2)" test $? = 2
done

# table rows: "INDEX ADDRESS CLASS..." lines of the Shared Data Cache Line Table
table() { sed -n '/Shared Data Cache Line Table/,/Shared Cache Line Distribution/p' "$1" | grep -E '^ +[0-9]+ +0x'; }

# --- false sharing ---
"$PERFKIT" c2c record -o "$T/fs.c2c" -- "$EX/falseshare" shared 20000 >/dev/null 2>"$T/fs.err"
expect "c2c record falseshare shared runs and writes its file" test -s "$T/fs.c2c"
expect "the file is created 0600" test "$(stat -c %a "$T/fs.c2c")" = 600
"$PERFKIT" c2c report -i "$T/fs.c2c" --stdio >"$T/fs.out" 2>"$T/fs.rerr"
first=$(table "$T/fs.out" | head -1)
if echo "$first" | grep -q 'false sharing.*`shared` (falseshare)'; then ok "the shared counters' line ranks first, false sharing: $first"
else not_ok "the shared counters' line ranks first as false sharing"; sed 's/^/# /' "$T/fs.out" | head -30; fi
tids=$(awk '$1 == "thread" { print $3 }' "$T/fs.c2c")
expect "the record lists two threads" test "$(echo "$tids" | wc -l)" = 2
read_line=$(grep '^line 0x.* in `shared`' "$T/fs.out")
for tid in $tids; do
	if echo "$read_line" | grep -q "$tid ("; then ok "the reading names thread $tid"
	else not_ok "the reading names thread $tid: $read_line"; fi
done
for l in "$LA" "$LB"; do
	if echo "$read_line" | grep -q "falseshare.c:$l"; then ok "the reading names falseshare.c:$l"
	else not_ok "the reading names falseshare.c:$l: $read_line"; fi
done
expect "the reading suggests padding to 64 bytes" grep -q 'false sharing; pad to 64 bytes' "$T/fs.out"
expect "the Pareto view lists both source lines" sh -c 'grep -q "falseshare.c:$1\$" "$3" && grep -q "falseshare.c:$2\$" "$3"' sh "$LA" "$LB" "$T/fs.out"
tr=$(echo "$first" | awk '{ print $5 }')
# the model: each thread's 2N accesses meet the other's N writes: about 2N
if [ "${tr:-0}" -ge 36000 ] && [ "${tr:-0}" -le 44000 ]; then ok "estimated transfers about 2 x 20000 ($tr)"
else not_ok "estimated transfers about 2 x 20000, got '$tr'"; fi

# --- padded: nothing above the threshold ---
"$PERFKIT" c2c record -o "$T/pad.c2c" -- "$EX/falseshare" padded 20000 >/dev/null 2>&1
"$PERFKIT" c2c report -i "$T/pad.c2c" >"$T/pad.out" 2>&1
if [ -z "$(table "$T/pad.out")" ] && grep -q 'no cache line reaches the threshold' "$T/pad.out"; then ok "padded: no line above the threshold"
else not_ok "padded: no line above the threshold"; table "$T/pad.out" | sed 's/^/# /'; fi

# --- true sharing: the lock counter ---
"$PERFKIT" c2c record -o "$T/lk.c2c" -- "$EX/lockcount" 20000 >/dev/null 2>&1
"$PERFKIT" c2c report -i "$T/lk.c2c" >"$T/lk.out" 2>&1
first=$(table "$T/lk.out" | head -1)
if echo "$first" | grep -q 'true sharing.*`shared_counter`'; then ok "lockcount: the counter's line is true sharing: $first"
else not_ok "lockcount: the counter's line is true sharing"; sed 's/^/# /' "$T/lk.out" | head -30; fi
expect "lockcount: the reading says padding will not help" grep -q 'true sharing; .*padding will not help' "$T/lk.out"
expect "lockcount: the reading names lockcount.c" grep -q '`shared_counter`.*lockcount.c:[0-9]' "$T/lk.out"

# --- read-mostly: the table is not flagged ---
"$PERFKIT" c2c record -o "$T/rm.c2c" -- "$EX/readmostly" 20000 >/dev/null 2>&1
"$PERFKIT" c2c report -i "$T/rm.c2c" >"$T/rm.out" 2>&1
if table "$T/rm.out" | grep -q '`table`'; then not_ok "readmostly: the table is not flagged"; table "$T/rm.out" | sed 's/^/# /'
else ok "readmostly: the table is not in the Shared Data Cache Line Table"; fi
expect "readmostly: the table is named read-mostly" grep -q 'read-mostly, not flagged: .*`table` (readmostly)' "$T/rm.out"
# --all lists it, classified read-mostly, with 0 transfers
"$PERFKIT" c2c report -i "$T/rm.c2c" --all >"$T/rm.all" 2>&1
expect "readmostly --all: the table's lines are read-mostly with 0 transfers" \
	sh -c 'grep -E "read-mostly +0 .*\`table\`" "$1" >/dev/null' sh "$T/rm.all"
# --- a heap block: the line named by its allocation site ---
cat >"$T/heapshare.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct counters { volatile long a, b; };

static void *worker(void *arg)
{
	struct counters *c = arg;

	for (int i = 0; i < 20000; i++)
		c->a++;
	return NULL;
}

int main(void)
{
	struct counters *c = calloc(1, sizeof(*c));	/* the shared block */
	pthread_t t;

	pthread_create(&t, NULL, worker, c);
	for (int i = 0; i < 20000; i++)
		c->b++;
	pthread_join(t, NULL);
	printf("%ld %ld\n", c->a, c->b);
	return 0;
}
C
if cc -O1 -g -o "$T/heapshare" "$T/heapshare.c" -lpthread 2>/dev/null; then
	AL=$(grep -n 'the shared block' "$T/heapshare.c" | cut -d: -f1)
	"$PERFKIT" c2c record -o "$T/hs.c2c" -- "$T/heapshare" >/dev/null 2>&1
	"$PERFKIT" c2c report -i "$T/hs.c2c" >"$T/hs.out" 2>&1
	first=$(table "$T/hs.out" | head -1)
	if echo "$first" | grep -q "false sharing .*block allocated at heapshare.c:$AL (main)"; then
		ok "heap: the line is named by its allocation site heapshare.c:$AL"
	else
		not_ok "heap: the line is named by its allocation site heapshare.c:$AL"; sed 's/^/# /' "$T/hs.out" | head -30
	fi
	expect "heap: the Pareto view gives the allocation stack" grep -q "^  allocated at: main (heapshare.c:$AL)" "$T/hs.out"
else
	skip "no C compiler for the heap test"
fi
done_testing
