# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit record stopped by SIGINT / SIGTERM still leaves a valid perf.data;
# the command gets the signal too.
. "$(dirname "$0")/lib.sh"

if ! have perf || ! can_perf_event; then
	skip "needs perf and perf_event_open (perf_event_paranoid <= 2 or root)"
	done_testing; exit
fi
cd "$T"

for sig in INT TERM; do
	# the signal goes once the command runs (record has its handlers then),
	# whatever the load; then 0.5 s more for samples
	"$PERFKIT" record -o $sig.data -- sh -c ': >running.$0; while :; do :; done' $sig 2>$sig.err &
	pid=$!
	wait_until 30 test -e running.$sig || diag "SIG$sig: the command did not start in 30 s"
	sleep 0.5
	kill -$sig $pid
	wait $pid
	rc=$?
	case $sig in INT) want=130;; TERM) want=143;; esac
	expect "SIG$sig: status is that of the command killed by it ($want)" test $rc -eq $want
	expect "SIG$sig: the file is there" test -s $sig.data
	expect "SIG$sig: no temporary file left" test -z "$(ls | grep -F "$sig.data.tmp")"
	expect "SIG$sig: summary line printed" grep -q '^\[ perfkit record: [1-9][0-9]* samples' $sig.err
	perf script -i $sig.data >$sig.out 2>$sig.perr
	same_file "SIG$sig: perf script stderr is empty" /dev/null $sig.perr
	expect "SIG$sig: samples of sh are in it" grep -q '^ *sh ' $sig.out
done

# no command (-a): stopped by the signal, it writes the file and then dies
# of the signal, as perf record (its sig_atexit): the shell sees 130 / 143
# (it exited 0)
# (no command and no -p is -a too, as perf record: INT's run without -a)
for sig in INT TERM; do
	a=-a
	[ $sig = INT ] && a=
	"$PERFKIT" record $a -o a$sig.data 2>a$sig.err &
	pid=$!
	wait_until 30 sh -c "ls | grep -q '^a$sig.data'" || diag "-a SIG$sig: no file in 30 s"
	sleep 0.5
	kill -$sig $pid
	wait $pid
	rc=$?
	case $sig in INT) want=130;; TERM) want=143;; esac
	expect "${a:-no command}, SIG$sig: dies of it after writing ($want, got $rc)" test $rc -eq $want
	expect "${a:-no command}, SIG$sig: the file is there, perf reads it" sh -c "test -s a$sig.data && perf report -i a$sig.data --stdio >/dev/null 2>&1"
done

done_testing
