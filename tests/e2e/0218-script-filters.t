#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit script --comms, --pid, --tid: perf script's filters, each a
# comma-separated list; only the samples of those commands, processes or
# threads are printed (all lists must pass).  Checked on a three-thread
# recording on its own (the kept samples are exactly the full output's
# samples of that thread) and byte for byte against perf script (6.1)
# where perf is installed; a bad id list is a usage error.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
if ! have cc; then skip "no cc"; done_testing; exit; fi
cat >"$T/thr.c" <<'C'
#include <pthread.h>
static volatile long ctr[4];
static void *worker(void *p) { for (long i = 0; i < 30000000; i++) ctr[(long)p]++; return 0; }
int main(void) { pthread_t t[3]; for (long i = 0; i < 3; i++) pthread_create(&t[i], 0, worker, (void *)i);
	for (int i = 0; i < 3; i++) pthread_join(t[i], 0); return 0; }
C
cc -O1 -g -pthread -o "$T/thr" "$T/thr.c" || { skip "cc failed"; done_testing; exit; }
cd "$T"
"$PERFKIT" record -e cpu-clock:u -g -o pk.data -- ./thr >/dev/null 2>&1
[ -s pk.data ] || { skip "record failed"; done_testing; exit; }
"$PERFKIT" script -i pk.data -F pid,tid >ids.txt
tid=$(awk '{ split($1, a, "/"); print a[2] }' ids.txt | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
pid=$(awk 'NR == 1 { split($1, a, "/"); print a[1] }' ids.txt)
want=$(grep -c "/$tid *\$" ids.txt)
"$PERFKIT" script -i pk.data --tid "$tid" -F tid >t.txt 2>t.err
expect "--tid $tid: exit 0" test $? = 0
head -2 t.err | while IFS= read -r l; do diag "$l"; done
expect "--tid $tid: its $want samples, no other thread's" \
	test "$(wc -l <t.txt)" = "$want" -a "$(grep -cv "^ *$tid *\$" t.txt)" = 0
"$PERFKIT" script -i pk.data --pid "$pid" -F tid >p.txt
expect "--pid $pid: every sample of the process" test "$(wc -l <p.txt)" = "$(wc -l <ids.txt)"
"$PERFKIT" script -i pk.data --comms nosuchcomm >n.txt
expect "--comms of no sample: nothing" test ! -s n.txt
"$PERFKIT" script -i pk.data --comms nosuchcomm,thr --tid "$tid" -F tid >c.txt
expect "--comms with --tid: both apply" cmp -s c.txt t.txt
"$PERFKIT" script -i pk.data --pid abc >/dev/null 2>e.txt
expect "--pid abc: usage error (2)" test $? = 2
expect "... saying what was expected" grep -q "expected a comma-separated list of ids" e.txt

if have perf; then
	perf record -q -e cpu-clock:u -g -o perf.data -- ./thr >/dev/null 2>&1
	for d in pk perf; do
		[ -s $d.data ] || { skip "$d.data: not recorded"; continue; }
		t=$(perf script -i $d.data -F tid | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
		p=$(perf script -i $d.data -F pid | awk 'NR == 1 { print $1 }')
		fails=0
		for F in "--comms thr" "--comms nope" "--comms nope,thr" "--pid $p" "--pid 1" "--tid $t" \
			"--tid $t -F tid,ip,sym" "--tid $t --comms thr -G" "--comms thr --pid $p --tid $t"; do
			# shellcheck disable=SC2086
			perf script -i $d.data $F >perf.out 2>/dev/null
			# shellcheck disable=SC2086
			"$PERFKIT" script -i $d.data $F >pk.out 2>/dev/null
			if ! cmp -s perf.out pk.out; then
				fails=$((fails + 1)); diag "$d $F:"
				diff perf.out pk.out | head -4 | while IFS= read -r l; do diag "$l"; done
			fi
		done
		expect "$d.data: perf script's bytes for 9 filter combinations" test "$fails" = 0
	done
else
	skip "perf (the oracle) is not installed"
fi
done_testing
