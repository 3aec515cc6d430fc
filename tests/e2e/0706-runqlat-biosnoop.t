#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit runqlat and biosnoop, with checks that hold on a loaded machine:
# runqlat -P: napper's 100 wakeups each give one run-queue wait in its own
# "pid = N napper" histogram (at least 100 counted); interval/count ends by
# itself.  biosnoop: dd's 16 direct 4 KiB writes appear as dd's W lines of
# 4096 bytes with a latency, on the disk of this directory; -Q adds QUE(ms);
# -d with that disk keeps them, an unknown disk is a usage error.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require
NAP=$PK_BUILD/tests/workloads/napper

hist_total() { awk '$2 == "->" && $4 == ":" { n += $5 } END { print n + 0 }'; }

if tracer_start "$T/rq" "$T/rq.err" "$PERFKIT" runqlat -P; then
	napid=$("$NAP" 2 1 100 | head -1)
	tracer_stop
	expect 'runqlat: Ctrl-C ends it with status 0' test $? = 0
	awk -v p="$napid" '$1 == "pid" { f = ($3 == p) } f' "$T/rq" >"$T/rq.nap"
	sed 's/^/# /' "$T/rq.nap" | head -14
	expect 'runqlat -P: a "pid = N napper" histogram' grep -q "^pid = $napid napper\$" "$T/rq"
	expect 'usecs histogram header' grep -Eq '^ +usecs +: count +distribution$' "$T/rq.nap"
	n=$(hist_total <"$T/rq.nap")
	expect "napper's 100 wakeups counted ($n)" test "$n" -ge 100
else
	not_ok 'runqlat starts'
fi
timeout 20 "$PERFKIT" runqlat -m -T 0.2 2 >"$T/rq2" 2>/dev/null
expect 'runqlat -m -T 0.2 2: ends by itself with status 0' test $? = 0
expect 'two msecs histograms with their time' \
	test "$(grep -Ec '^ +msecs +: count' "$T/rq2")" = 2 -a "$(grep -Ec '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$T/rq2")" = 2
"$PERFKIT" runqlat -P -L >/dev/null 2>&1
expect 'runqlat -P -L: usage error' test $? = 2

if dd if=/dev/zero of="$T/probe" bs=4k count=1 oflag=direct 2>/dev/null; then
	src=$(df --output=source "$T" | tail -1)
	disk=${src#/dev/}
	dopt=()
	[ -e "/sys/class/block/$disk" ] && dopt=(-d "$disk")
	if tracer_start "$T/bio" "$T/bio.err" "$PERFKIT" biosnoop -Q "${dopt[@]}"; then
		dd if=/dev/zero of="$T/f" bs=4k count=16 oflag=direct 2>/dev/null
		sync
		tracer_stop
		expect 'biosnoop: Ctrl-C ends it with status 0' test $? = 0
		head -4 "$T/bio" | sed 's/^/# /'
		expect 'biosnoop -Q header' \
			grep -Eq '^TIME\(s\) +COMM +PID +DISK +T +SECTOR +BYTES +QUE\(ms\) +LAT\(ms\)$' "$T/bio"
		n=$(awk '$2 == "dd" && $5 ~ /^W/ && $7 == 4096 && $9 ~ /^[0-9]+\.[0-9][0-9][0-9]$/' "$T/bio" | wc -l)
		expect "dd's 16 direct writes seen as W 4096 with a latency ($n)" test "$n" -ge 16
		if [ ${#dopt[@]} = 2 ]; then
			other=$(awk 'NR > 1 && $4 == "?"' "$T/bio" | wc -l)
			diag "-d $disk"
			expect "-d $disk: no line of an unknown disk" test "$other" = 0
		else
			skip "the filesystem of $T is on $src, no block device in /sys/class/block"
		fi
	else
		not_ok 'biosnoop starts'
	fi
else
	skip "O_DIRECT not supported on the filesystem of $T"
fi
"$PERFKIT" biosnoop -d 'no/such' >/dev/null 2>"$T/e"
expect 'biosnoop -d unknown: usage error' test $? = 2
expect 'biosnoop -d unknown: says so' grep -q "^perfkit biosnoop: -d: no block device 'no/such'" "$T/e"
done_testing
