#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit biolatency: the direct I/Os of dd are counted (at least as many as
# dd issued) in bcc's histogram layout, per disk with -D.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bpf-lib.sh"
bpf_require

# sum of the count column of every histogram row
# reads and writes completed by the whole disks (/sys/block), /proc/diskstats;
# disk_inflight: the I/Os in progress on them (its 9th statistic)
disk_stat() {
	awk -v disks=" $(ls /sys/block 2>/dev/null | tr '\n' ' ') " -v f="$1" \
		'index(disks, " " $3 " ") { n += f == "done" ? $4 + $8 : $12 } END { print n + 0 }' /proc/diskstats
}
disk_ios() { disk_stat done; }
disk_inflight() { disk_stat inflight; }
hist_total() { awk '$2 == "->" && $4 == ":" { n += $5 } END { print n + 0 }' "$1"; }

N=64
if dd if=/dev/zero of="$T/probe" bs=4k count=1 oflag=direct 2>/dev/null; then
	if tracer_start "$T/out" "$T/err" "$PERFKIT" biolatency -D; then
		k0=$(disk_ios) q0=$(disk_inflight)
		dd if=/dev/zero of="$T/f" bs=4k count=$N oflag=direct 2>/dev/null
		k1=$(disk_ios)
		tracer_stop
		expect 'Ctrl-C ends it with status 0' test $? = 0
		expect 'usecs histogram header' grep -Eq '^ +usecs +: count +distribution$' "$T/out"
		expect '-D: disk = NAME lines' grep -Eq '^disk = [a-z0-9]' "$T/out"
		total=$(hist_total "$T/out")
		# the kernel's own count of the I/Os completed meanwhile: where the
		# block layer merges dd's writes, fewer than dd issued; less those
		# in progress when dd started, which may have been issued before
		# the tool was attached (then not timed: another process's write
		# on a busy machine, 63 counted of 64 completed once)
		done=$((k1 - k0 - q0))
		want=$((done < N ? done : N))
		expect "at least the $want I/Os the disks completed while dd ran (dd issued $N)" test "$total" -ge "$want"
		diag "I/Os counted: $total; completed by the disks (/proc/diskstats) while dd ran: $((k1 - k0)), $q0 of them in progress when dd started"
		cat "$T/out" | sed 's/^/# /'
	else
		not_ok 'biolatency starts'
	fi
	# interval and count: ends by itself
	"$PERFKIT" biolatency -m 0.2 2 >"$T/out2" 2>"$T/err2"
	expect 'interval 0.2 count 2 ends by itself with status 0' test $? = 0
else
	skip "O_DIRECT not supported on the filesystem of $T"
fi
"$PERFKIT" biolatency 0 >/dev/null 2>&1
expect 'bad interval: exit 2' test $? = 2
done_testing
