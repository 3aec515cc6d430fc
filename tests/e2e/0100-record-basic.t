# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit record on a small CPU-bound program: Linux perf must read the file
# without a word on stderr and see the same symbols as in its own recording.
. "$(dirname "$0")/lib.sh"

if ! have perf || ! have cc || ! can_perf_event; then
	skip "needs perf, cc and perf_event_open (perf_event_paranoid <= 2 or root)"
	done_testing; exit
fi
cat >"$T/burn.c" <<'C'
static volatile unsigned long sink;
__attribute__((noinline)) void touch(void) { sink++; }
/* not a leaf, so it has a frame even where gcc omits leaf frame pointers */
__attribute__((noinline)) void burn_inner(long n) { for (long i = 0; i < n; i++) sink += i * i; touch(); }
__attribute__((noinline)) void burn_outer(long n) { burn_inner(n); sink++; }
int main(void) { for (int k = 0; k < 30; k++) burn_outer(3000000); return 0; }
C
cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$T/burn" "$T/burn.c" || { skip "cc failed"; done_testing; exit; }

cd "$T"
"$PERFKIT" record -o rec.data -- ./burn 2>rec.err
expect 'record exits with the command status 0' test $? -eq 0
expect 'perf.data file written' test -s rec.data
expect 'no temporary file left' test -z "$(ls | grep -F '.tmp-')"
expect 'summary line on stderr' grep -Eq '^\[ perfkit record: [0-9]+ samples, 0 lost, [0-9]+\.[0-9]{3} MB written to rec.data \]$' rec.err

perf script -i rec.data >script.out 2>script.err
expect 'perf script reads it' test $? -eq 0
same_file 'perf script stderr is empty' /dev/null script.err
expect 'perf script shows samples in burn_inner' grep -q 'burn_inner' script.out
expect 'samples carry the command name' grep -q '^ *burn ' script.out

perf report --stdio -i rec.data >report.out 2>report.err
same_file 'perf report stderr is empty' /dev/null report.err
top() { grep -v '^#' "$1" | grep '%' | head -1 | awk '{print $NF}'; }
perf record -q -o ref.data -- ./burn >/dev/null 2>&1
perf report --stdio -i ref.data >ref.out 2>/dev/null
expect 'top symbol is burn_inner' test "$(top report.out)" = burn_inner
expect 'top symbol matches perf record' test "$(top report.out)" = "$(top ref.out)"

perf report --header-only -i rec.data >hdr.out 2>hdr.err
same_file 'perf report --header-only stderr is empty' /dev/null hdr.err
for f in hostname 'os release' arch 'nrcpus online' 'total memory' cmdline 'event : name = cpu-clock'; do
	expect "header shows $f" grep -q "^# $f" hdr.out
done
expect "header cmdline reads 'EXE record ARGS', as perf's" grep -Eq '^# cmdline : [^ ]*perfkit record ' hdr.out
"$PERFKIT" help record >help.out 2>&1
expect "perfkit help record: record's own help" grep -q '^usage: perfkit record' help.out
perf buildid-list -i rec.data >bid.out 2>bid.err
expect 'build-id of the program is recorded' grep -q " $T/burn\$" bid.out

# -g: frame-pointer call chains
"$PERFKIT" record -g -F 499 -o g.data -- ./burn 2>/dev/null
perf script -i g.data >g.out 2>g.err
same_file 'perf script -g stderr is empty' /dev/null g.err
expect 'callchains show burn_inner <- burn_outer <- main' \
	awk '/burn_inner/ {a=NR} /burn_outer/ && a==NR-1 {b=NR} /main/ && b==NR-1 {ok=1} END {exit !ok}' g.out
perf report --stdio -i g.data >/dev/null 2>g2.err
same_file 'perf report on -g file: stderr is empty' /dev/null g2.err

# -c PERIOD and the .old rename
cp rec.data first.data
"$PERFKIT" record -c 100000 -e task-clock -o rec.data -- ./burn 2>/dev/null
expect 'an existing file becomes FILE.old' cmp -s first.data rec.data.old
perf script -F event,period -i rec.data 2>c.err | head -3 >c.out
expect '-c sets a fixed period, -e task-clock the event' grep -q 'task-clock.*100000\|100000.*task-clock' c.out
same_file 'perf script stderr empty for -c/-e' /dev/null c.err

done_testing
