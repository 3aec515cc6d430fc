#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 0992 — a recording cut short keeps what it had: perfkit record stopped by
# SIGINT, by SIGTERM, and with its target killed by SIGKILL, and a
# recording that fills its disk (a 1 MB tmpfs mounted here; needs root),
# each leave a perf.data that perfkit and perf both read, holding the
# samples taken before the fault.  Also the safe defaults: the file is
# mode 0600, no temporary file is left behind, and an output path that is
# a symbolic link is not replaced without -f (and its target is never
# written).
. "$(dirname "$0")/lib.sh"
set -m   # background jobs get SIGINT like a foreground program would
trap 'umount "$T/full" 2>/dev/null; rm -rf "$T"' EXIT
burn=$PK_BUILD/tests/workloads/burn2to1
if ! can_perf_event; then skip "perf events not allowed here"; done_testing; exit; fi

# readable FILE MIN-SAMPLES WHAT — perfkit and perf read FILE, with at least
# MIN samples, some of them in the workload's own functions
readable() {
	local f=$1 min=$2 what=$3 n
	if "$PERFKIT" report -i "$f" --stdio >"$T/rep" 2>"$T/rep.err"; then
		n=$(sed -n 's/^# Samples: \([0-9]*\).*/\1/p' "$T/rep" | head -1)
		ok "$what: perfkit report reads it ($(grep -m1 '^# Samples' "$T/rep"))"
	else
		not_ok "$what: perfkit report reads it"; head -3 "$T/rep.err" | sed 's/^/# /'
	fi
	if have perf; then
		if perf script -i "$f" -F tid,time >"$T/ps" 2>"$T/ps.err"; then
			n=$(wc -l <"$T/ps")   # one line a sample (no ip: no call chain lines)
			perf script -i "$f" -F ip,sym >"$T/ps" 2>/dev/null
			if [ "$n" -ge "$min" ]; then ok "$what: perf script reads $n samples (>= $min)"
			else not_ok "$what: perf script reads $n samples, expected >= $min"; fi
			if [ -n "${4:-}" ]; then
				if grep -q "$4" "$T/ps"; then ok "$what: samples in $4 are there"
				else not_ok "$what: no sample in $4"; fi
			fi
		else
			not_ok "$what: perf script reads it"; head -3 "$T/ps.err" | sed 's/^/# /'
		fi
	else
		skip "perf not installed"
	fi
	local mode; mode=$(stat -c %a "$f")
	if [ "$mode" = 600 ]; then ok "$what: mode 0600"; else not_ok "$what: mode $mode, expected 600"; fi
	if ls "$f".tmp-* >/dev/null 2>&1; then not_ok "$what: a temporary file was left"; else ok "$what: no temporary file left"; fi
}

# SIGINT and SIGTERM to perfkit record, and SIGKILL to its target, each 1 s
# after its workload started (a 5 s burn; 20 samples at least: the CPU may be
# busy): the three recordings at once, then each checked
declare -A rpid rrc
for c in INT TERM kill; do
	"$PERFKIT" record -F 1000 -g -o "$T/$c.data" -- "$burn" 5000 >/dev/null 2>"$T/$c.err" &
	rpid[$c]=$!
done
for c in INT TERM kill; do wait_until 30 pgrep -P "${rpid[$c]}" -f burn2to1 >/dev/null; done
sleep 1
kill -s INT "${rpid[INT]}"
kill -s TERM "${rpid[TERM]}"
child=$(pgrep -P "${rpid[kill]}" -f burn2to1 | head -1)
[ -n "$child" ] && kill -KILL "$child"
for c in INT TERM; do wait "${rpid[$c]}"; rrc[$c]=$?; done
# signal_case SIG — the recording stopped by SIG
signal_case() {
	local sig=$1 f=$T/$1.data rc=${rrc[$1]}
	if [ $rc -ne 0 ] && [ -s "$f" ]; then ok "SIG$sig: record ended (exit $rc) and wrote $f"
	else not_ok "SIG$sig: record exit $rc, file $(stat -c %s "$f" 2>/dev/null || echo missing)"; head -3 "$T/$sig.err" | sed 's/^/# /'; fi
	readable "$f" 20 "SIG$sig" burn_
}
signal_case INT
signal_case TERM

# the target killed by SIGKILL: record ends by itself and keeps the samples
f=$T/kill.data
pid=${rpid[kill]}
if [ -n "$child" ]; then
	wait "$pid"; rc=$?
	if [ -s "$f" ]; then ok "target SIGKILLed: record ended (exit $rc) and wrote the file"
	else not_ok "target SIGKILLed: no file (exit $rc)"; head -3 "$T/kill.err" | sed 's/^/# /'; fi
	readable "$f" 20 "target SIGKILLed" burn_
else
	kill "$pid"; wait "$pid"
	not_ok "target SIGKILLed: found the workload's pid"
fi

# a full disk: a 1 MB tmpfs; page-fault samples with call chains fill it fast
mkdir -p "$T/full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1m perfkit-e2e-full "$T/full" 2>/dev/null; then
	f=$T/full/perf.data
	timeout 20 "$PERFKIT" record -e page-faults -c 1 -g -o "$f" -- \
		dd if=/dev/zero of=/dev/null bs=64M count=2 >/dev/null 2>"$T/full.err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q '^perfkit record: .*no space left.*samples written until then are in' "$T/full.err"; then
		ok "full disk: exit 1 with a clear message ($(head -1 "$T/full.err" | cut -c1-100))"
	else
		not_ok "full disk: exit $rc"; head -3 "$T/full.err" | sed 's/^/# /'
	fi
	readable "$f" 1000 "full disk"
	umount "$T/full"
else
	skip "full disk: cannot mount a tmpfs (needs root)"
fi

# small disks (200 KB, 600 KB): no reserve larger than needed, so most of
# the space holds records (a 256 KB reserve kept nothing on 200 KB); the
# summary line still prints, with the samples kept and dropped and why
for size in 200k 600k; do
	if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=$size perfkit-e2e-full "$T/full" 2>/dev/null; then
		f=$T/full/perf.data
		timeout 20 "$PERFKIT" record -e page-faults -c 1 -g -o "$f" -- \
			dd if=/dev/zero of=/dev/null bs=64M count=2 >/dev/null 2>"$T/full.err"
		kept=$(sed -n 's/^\[ perfkit record: \([0-9]*\) samples kept, \([0-9]*\) dropped (disk full), .* written to .*\]$/\1/p' "$T/full.err")
		expect "$size disk: the summary line says samples kept and dropped (disk full)" test -n "$kept"
		# -c 1: the event count is the number of samples
		n=$("$PERFKIT" report -i "$f" --stdio 2>/dev/null | sed -n 's/^# Event count (approx.): \([0-9]*\)$/\1/p' | head -1)
		bytes=$(stat -c %s "$f" 2>/dev/null || echo 0)
		diag "$size disk: ${kept:-?} samples kept, report reads ${n:-0}, file $bytes bytes"
		expect "$size disk: report reads the samples kept (${n:-0} = ${kept:-?})" test "${n:-x}" = "${kept:-y}"
		expect "$size disk: the records fill most of the disk ($bytes bytes)" \
			test "$bytes" -gt $(( ${size%k} * 1024 * 3 / 4 ))
		if have perf; then
			expect "$size disk: perf reads it" sh -c 'perf script -i "$1" -F ip >/dev/null 2>&1' - "$f"
		fi
		umount "$T/full"
	else
		skip "$size disk: cannot mount a tmpfs (needs root)"
	fi
done

# an output path that is a symbolic link: refused without -f; with -f the
# link is replaced and its target untouched
echo precious >"$T/victim"
ln -s "$T/victim" "$T/link.data"
"$PERFKIT" record -o "$T/link.data" -- /bin/true >/dev/null 2>"$T/link.err"
rc=$?
if [ $rc -ne 0 ] && [ -L "$T/link.data" ] && grep -q 'symbolic link' "$T/link.err"; then
	ok "symlink output refused without -f: $(head -1 "$T/link.err")"
else
	not_ok "symlink output refused without -f (exit $rc)"
fi
expect "symlink target unchanged" grep -qx precious "$T/victim"
"$PERFKIT" record -f -o "$T/link.data" -- /bin/true >/dev/null 2>&1
if [ ! -L "$T/link.data" ] && [ -f "$T/link.data" ] && grep -qx precious "$T/victim"; then
	ok "-f replaces the link itself, never its target"
else
	not_ok "-f replaces the link itself, never its target"
fi

# lost samples (a one-page ring buffer at a high rate): perf report and
# perfkit report both count them from the PERF_RECORD_LOST_SAMPLES record
# record writes at the end, and agree with what record said
"$PERFKIT" record -F 50000 -m 1 -o "$T/lost.data" -- "$PK_BUILD/examples/matmul" naive 2 >/dev/null 2>"$T/lost.err"
nl=$(sed -n 's/.* samples, \([0-9]*\) lost, .*/\1/p' "$T/lost.err")
if [ "${nl:-0}" -gt 0 ] && have perf; then
	pl=$(perf report -i "$T/lost.data" --stdio 2>/dev/null | sed -n 's/^# Total Lost Samples: //p' | head -1)
	kl=$("$PERFKIT" report -i "$T/lost.data" 2>/dev/null | sed -n 's/^# Total Lost Samples: //p' | head -1)
	expect "lost samples: perf report counts record's $nl ($pl)" test "$pl" = "$nl"
	expect "lost samples: perfkit report counts them once ($kl)" test "$kl" = "$nl"
	"$PERFKIT" report -i "$T/lost.data" >/dev/null 2>"$T/lost.rerr"
	expect "... and warns, as perf report does" grep -q 'events were lost while recording' "$T/lost.rerr"
else
	skip "lost samples: none lost on this machine (or no perf)"
fi
done_testing
