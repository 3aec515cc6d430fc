#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit script -c/--comms, --pid, --tid, -C, --time, --dsos,
# -S/--symbols: perf script's filters, each a comma-separated list (--time:
# START,STOP ranges); only the samples of those commands, processes,
# threads, CPUs or times, or whose leaf is in those DSOs or symbols, are
# printed (all lists must pass).  Checked on a three-thread
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

# --time START,STOP (seconds, as the time column, up to 9 decimals; both
# ends included; either left out; ranges separated by blanks).  The times
# are taken with --ns (perf script's, 9 decimals): the µs column truncates,
# and neighbouring samples may share a microsecond
"$PERFKIT" script -i pk.data -F time --ns >times.txt
"$PERFKIT" script -i pk.data -F time >us.txt
expect "--ns: the time column with 9 decimals, the default's 6 and 3 more" \
	cmp -s us.txt <(sed -E 's/([0-9]{6})[0-9]{3}:/\1:/' times.txt)
expect "--ns: every time has 9 decimals" test -z "$(grep -Ev '^ *[0-9]+\.[0-9]{9}: ?$' times.txt | head -1)"
n=$(wc -l <times.txt)
mid=$(sed -n "$((n / 2))p" times.txt | tr -d ' :')
first=$(sed -n 3p times.txt | tr -d ' :')
# count OP T: how many samples' times are OP T (the decimal strings
# compared by their integer ns, exact)
count() {
	awk -v op="$1" -v t="$2" 'function ns(x,  p) { p = index(x, "."); return substr(x, 1, p - 1) substr(x, p + 1) }
		{ x = $1; sub(/:$/, "", x); a = ns(x); b = ns(t)
		  c = length(a) != length(b) ? (length(a) < length(b) ? -1 : 1) : (a < b ? -1 : a > b ? 1 : 0)
		  if ((op == "le" && c <= 0) || (op == "ge" && c >= 0)) k++ }
		END { print k + 0 }' times.txt
}
"$PERFKIT" script -i pk.data -F time --ns --time ",$mid" >lo.txt
"$PERFKIT" script -i pk.data -F time --ns --time "$mid," >hi.txt
le=$(count le "$mid"); ge=$(count ge "$mid")
expect "--time ,$mid: the samples up to it, that one included ($(wc -l <lo.txt) = $le)" \
	test "$(wc -l <lo.txt)" = "$le" -a "$(tail -1 lo.txt | tr -d ' :')" = "$mid"
expect "--time $mid,: the samples from it on ($(wc -l <hi.txt) = $ge)" \
	test "$(wc -l <hi.txt)" = "$ge" -a "$(head -1 hi.txt | tr -d ' :')" = "$mid"
expect "--time ,$mid and $mid,: every sample, the ones at $mid in both" \
	test $((le + ge)) -ge "$n" -a $((le + ge)) -lt $((n + 3))
# a bound past any sample, of any size (perf's u64): no sample, exit 0
"$PERFKIT" script -i pk.data -F time --time 99999999999, >far.txt 2>far.err
expect "--time 99999999999,: no sample, exit 0 (perf's)" sh -c "test $? = 0 && test ! -s far.txt && ! grep -q 'expected START' far.err"
"$PERFKIT" script -i pk.data -F time --time ,184467440737095516160 >all.txt 2>/dev/null
expect "--time ,(past 2^64 ns): every sample" test "$(wc -l <all.txt)" = "$n"
"$PERFKIT" script -i pk.data -F time --ns --time ",$first $mid," >two.txt
expect "--time with two ranges: a sample in either" \
	test "$(wc -l <two.txt)" = $(($(count le "$first") + ge))
# the µs column's value as a bound: a sample shown at it is after it
# unless taken on the microsecond itself
us_mid=${mid%???}
"$PERFKIT" script -i pk.data -F time --time ",$us_mid" >lo_us.txt
expect "--time ,$us_mid (6 decimals): the samples up to $us_mid.000" \
	test "$(wc -l <lo_us.txt)" = "$(count le "${us_mid}000")"
# --reltime --time A,B: seconds since the file's first sample, as perf's
# (perfkit read them as absolute times: nothing kept)
"$PERFKIT" script -i pk.data -F time --ns --reltime >rel.txt
rmid=$(sed -n "$((n / 2))p" rel.txt | tr -d ' :')
"$PERFKIT" script -i pk.data -F time --ns --reltime --time ",$rmid" >rlo.txt
expect "--reltime --time ,$rmid: the samples up to the middle one ($(wc -l <rlo.txt) = $le)" \
	test "$(wc -l <rlo.txt)" = "$le"
"$PERFKIT" script -i pk.data -F time --ns --reltime --time "$rmid," >rhi.txt
expect "--reltime --time $rmid,: the samples from it on ($(wc -l <rhi.txt) = $ge)" \
	test "$(wc -l <rhi.txt)" = "$ge"
for bad in "x,1" "2,1" "1,2,3,4" "10%/2" "1.1234567890,"; do
	"$PERFKIT" script -i pk.data --time "$bad" >/dev/null 2>e.txt
	expect "--time '$bad': usage error (2), one line" test $? = 2 -a "$(wc -l <e.txt)" = 1
done
# -C: the file has no CPU field (perf record without -a or --sample-cpu)
"$PERFKIT" script -i pk.data -C 0 >c0.txt 2>e.txt
expect "-C on a file without CPUs: exit 1, saying so" test $? = 1 -a ! -s c0.txt -a -n "$(grep -i 'no CPU' e.txt)"
for bad in 0-x 1,0-1 0,0 2-1 ""; do
	"$PERFKIT" script -i pk.data -C "$bad" >/dev/null 2>e.txt
	expect "-C '$bad': usage error (2), one line" test $? = 2 -a "$(wc -l <e.txt)" = 1
done

# wstart FILE: worker's start address as mapped (perf's -S 0xADDR form)
wstart() {
	local ip off
	read -r ip off < <(perf script -i "$1" -F ip,sym,symoff -G 2>/dev/null |
		awk '$2 ~ /^worker\+0x/ { sub(/^worker\+/, "", $2); print $1, $2; exit }')
	printf '0x%x' $((0x$ip - off))
}
if have perf; then
	perf record -q -e cpu-clock:u -g -o perf.data -- ./thr >/dev/null 2>&1
	# -C against perf: a recording with the CPU of each sample
	perf record -q -e cpu-clock:u --sample-cpu -o cpu.data -- ./thr >/dev/null 2>&1
	if [ -s cpu.data ]; then
		fails=0
		for F in "-C 0" "-C 1" "-C 0-1" "-C 0 --comms thr" "-C 0,0"; do
			# shellcheck disable=SC2086
			perf script -i cpu.data $F >perf.out 2>/dev/null
			# shellcheck disable=SC2086
			"$PERFKIT" script -i cpu.data $F >pk.out 2>/dev/null
			cmp -s perf.out pk.out || { fails=$((fails + 1)); diag "cpu.data $F differs"; }
		done
		expect "cpu.data: perf script's bytes for 5 -C lists" test "$fails" = 0
		"$PERFKIT" script -i cpu.data -C 4095 >/dev/null 2>e.txt
		expect "-C 4095, beyond the recording's CPUs: exit 1, naming it" test $? = 1 -a -n "$(grep 'CPU 4095' e.txt)"
	fi
	# --reltime --time on perf's recording (its SAMPLE_TIME feature's first
	# time the base, as perf's)
	if [ -s perf.data ]; then
		rt=$(perf script -i perf.data -F time --reltime | awk 'NR == 30 { sub(/:/, ""); print $1 }')
		perf script -i perf.data --reltime --time ",$rt" -F tid,time >perf.out 2>/dev/null
		"$PERFKIT" script -i perf.data --reltime --time ",$rt" -F tid,time >pk.out 2>/dev/null
		expect "--reltime --time ,$rt: perf script's lines ($(wc -l <perf.out))" \
			test -s perf.out -a "$(wc -l <perf.out)" = "$(wc -l <pk.out)"
	fi
	for d in pk perf; do
		[ -s $d.data ] || { skip "$d.data: not recorded"; continue; }
		t=$(perf script -i $d.data -F tid | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
		p=$(perf script -i $d.data -F pid | awk 'NR == 1 { print $1 }')
		fails=0
		for F in "--comms thr" "--comms nope" "--comms nope,thr" "--pid $p" "--pid 1" "--tid $t" \
			"--tid $t -F tid,ip,sym" "--tid $t --comms thr -G" "--comms thr --pid $p --tid $t" \
			"--time=$(perf script -i $d.data -F time | awk 'NR == 20 { sub(/:/, ""); print $1 }')," \
			"--time=,$(perf script -i $d.data -F time | awk 'NR == 40 { sub(/:/, ""); print $1 }')" \
			"-c thr" "-S worker" "-S main,worker --dsos thr" "--dsos libc.so.6"; do
			# shellcheck disable=SC2086
			# (a PLT stub's frame: perf 6.1's _init+OFF, perfkit's
			# name@plt+OFF, the README's known difference)
			perf script -i $d.data $F 2>/dev/null | sed -E 's/ (_init|[^ ]*@plt)\+0x[0-9a-f]+ / PLT /' >perf.out
			# shellcheck disable=SC2086
			"$PERFKIT" script -i $d.data $F 2>/dev/null | sed -E 's/ (_init|[^ ]*@plt)\+0x[0-9a-f]+ / PLT /' >pk.out
			if ! cmp -s perf.out pk.out; then
				fails=$((fails + 1)); diag "$d $F:"
				diff perf.out pk.out | head -4 | while IFS= read -r l; do diag "$l"; done
			fi
		done
		expect "$d.data: perf script's bytes for 15 filter combinations" test "$fails" = 0
		# a symbol by its start address (perf's documented 0xADDR form;
		# perf 6.1 itself matches none here): the same samples as by name
		"$PERFKIT" script -i $d.data -S worker >byname.out 2>/dev/null
		"$PERFKIT" script -i $d.data -S "$(wstart $d.data)" >byaddr.out 2>/dev/null
		expect "$d.data: -S $(wstart $d.data) keeps worker's samples, as -S worker" \
			sh -c 'test -s byname.out && cmp -s byname.out byaddr.out'
	done
else
	skip "perf (the oracle) is not installed"
fi
done_testing
