#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# collapse of a perf.data of tracepoints folds as `perf script |
# stackcollapse-perf.pl` does: a tracepoint's line goes on past its event
# name (its fields), so the Perl script reads no event on it and keeps
# every tracepoint sample, whatever the first event or --event-filter;
# perfkit's perf.data path did filter for the first event.
. "$(dirname "$0")/lib.sh"
perf_event_require
if [ "$(id -u)" != 0 ]; then
	skip "tracepoints: needs root (tracefs)"
	done_testing; exit
fi
cd "$T"
# short-lived processes in the window: an exiting task's last switch is
# a sample of tid -1, which perf script prints ":-1    -1 [001] …", a
# header stackcollapse-perf.pl drops (no pid in it): the perf.data path
# drops it too (it kept it, one sample more than the text path)
"$PERFKIT" record -e sched:sched_switch,sched:sched_wakeup -a -g -o tp.data -- \
	sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do /bin/true; done; sleep 0.3' \
	>/dev/null 2>rec.err
"$PERFKIT" script -i tp.data -F event 2>/dev/null | sort | uniq -c >ev.txt
diag "$(cat ev.txt)"
neg=$("$PERFKIT" script -i tp.data -F tid 2>/dev/null | awk '$1 == -1' | wc -l)
diag "samples of tid -1 (dropped): $neg"
nev=$(wc -l <ev.txt)
total=$(awk -v neg="$neg" '{ s += $1 } END { print s - neg }' ev.txt)
if [ "$nev" -lt 2 ]; then
	skip "the recording holds one of the two events only"
	done_testing; exit
fi
"$PERFKIT" collapse tp.data >c.txt 2>c.err
sum=$(awk '{ s += $NF } END { print s + 0 }' c.txt)
expect "every sample of both events folded ($sum of $total)" test "$sum" = "$total"
expect "no 'filtering for events' warning" sh -c "! grep -q 'filtering for events' c.err"
"$PERFKIT" collapse --event-filter=sched:sched_switch tp.data >f.txt 2>/dev/null
sum=$(awk '{ s += $NF } END { print s + 0 }' f.txt)
expect "--event-filter keeps them too, as the Perl script's ($sum of $total)" test "$sum" = "$total"
"$PERFKIT" script -i tp.data 2>/dev/null | "$PERFKIT" collapse >t.txt 2>/dev/null
sum=$(awk '{ s += $NF } END { print s + 0 }' t.txt)
expect "the text path folds the same samples ($sum of $total)" test "$sum" = "$total"
done_testing
