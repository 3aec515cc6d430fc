#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# 0991 — hostile and broken inputs for every reading command (report,
# script, collapse, flamegraph, annotate): a real perf.data cut at every
# eighth, random bytes (plain and behind a perf.data magic), huge declared
# sizes in the header, the attributes, a record and a feature section, a
# 5000-frame stack (folded and perf script), a 100 MB single line, a
# Cachegrind file naming /dev/zero as its source.  Each run must use at most
# a second of CPU (three for the 100 MB line; three times as much under the
# sanitizers, which slow everything down; killed as hung after 60 s) and end
# with exit 0 (a valid result), or 1 (2 for flamegraph's "no stack counts", as
# flamegraph.pl) with a "perfkit CMD: ..." line — never a signal, a
# sanitizer report or a hang.  The large inputs
# are made here, not committed.
. "$(dirname "$0")/lib.sh"
LIMIT=1
[ -n "${PK_SAN:-}" ] && LIMIT=3

# check NAME CMD ARGS... — run perfkit CMD ARGS: at most LIMIT seconds of CPU
# time (user + system: wall time varies with the load of a shared machine),
# and killed as hung after 60 s of wall time (a loaded machine is slow)
check() {
	local name=$1 cmd=$2; shift 2
	local rc cpu ms
	timeout -s KILL 60 /usr/bin/time -f '%U %S' -o "$T/time" \
		"$PERFKIT" "$cmd" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	cpu=$(tail -1 "$T/time" 2>/dev/null | awk '{ printf "%d", ($1 + $2) * 1000 }')
	ms=${cpu:-99999}
	if [ $rc -gt 2 ]; then
		not_ok "$cmd $name: exit $rc"; head -5 "$T/err" | sed 's/^/# /'; return
	fi
	if [ "$ms" -gt $((LIMIT * 1000)) ]; then
		not_ok "$cmd $name: took $ms ms of CPU (limit ${LIMIT}s)"; return
	fi
	if grep -qE 'Sanitizer|runtime error' "$T/err"; then
		not_ok "$cmd $name: sanitizer report"; head -5 "$T/err" | sed 's/^/# /'; return
	fi
	if [ $rc -ne 0 ] && ! grep -q "^perfkit $cmd: ." "$T/err"; then
		not_ok "$cmd $name: exit $rc without a 'perfkit $cmd: ...' message"
		head -3 "$T/err" | sed 's/^/# /'; return
	fi
	ok "$cmd $name: exit $rc, $ms ms CPU$( [ $rc -ne 0 ] && printf ' (%s)' "$(grep -m1 "^perfkit $cmd:" "$T/err" | cut -c1-90)")"
}
perfdata_cmds() { # NAME FILE
	check "$1" report -i "$2" --stdio
	check "$1" script -i "$2"
	check "$1" collapse "$2"
	check "$1" flamegraph "$2"
}
text_cmds() { # NAME FILE
	check "$1" collapse "$2"
	check "$1" flamegraph "$2"
	check "$1" annotate "$2"
}
# patch FILE OFFSET HEX-BYTES — overwrite bytes in place (little-endian values)
patch() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
u64() { printf "$1" | perl -e 'my $v = <STDIN>; print map { sprintf "\\x%02x", ($v >> (8 * $_)) & 255 } 0 .. 7'; }
rd64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }

# a real recording (perf.data), made now
good=$T/good.data
if can_perf_event && "$PERFKIT" record -o "$good" -g -F 2000 -- "$PK_BUILD/tests/workloads/burn2to1" 100 \
	>/dev/null 2>"$T/rec.err" && [ -s "$good" ]; then
	size=$(stat -c %s "$good")
	for k in 0 1 2 3 4 5 6 7; do
		head -c $((size * k / 8)) "$good" >"$T/cut$k.data"
		perfdata_cmds "cut at $k/8" "$T/cut$k.data"
	done
	doff=$(rd64 "$good" 40) dsize=$(rd64 "$good" 48)
	cp "$good" "$T/h1.data"; patch "$T/h1.data" 16 "$(u64 4611686018427387904)"
	perfdata_cmds "attr_size 2^62" "$T/h1.data"
	cp "$good" "$T/h2.data"; patch "$T/h2.data" 32 "$(u64 4611686018427387904)"
	perfdata_cmds "attrs section size 2^62" "$T/h2.data"
	cp "$good" "$T/h3.data"; patch "$T/h3.data" 48 "$(u64 9223372036854775808)"
	perfdata_cmds "data size 2^63" "$T/h3.data"
	cp "$good" "$T/h4.data"; patch "$T/h4.data" $((doff + 6)) '\xf8\xff'
	perfdata_cmds "first record size 65528" "$T/h4.data"
	cp "$good" "$T/h5.data"; patch "$T/h5.data" $((doff + dsize + 8)) "$(u64 1152921504606846976)"
	perfdata_cmds "first feature section size 2^60" "$T/h5.data"
	cp "$good" "$T/h6.data"; patch "$T/h6.data" 40 "$(u64 18446744073709551608)"
	perfdata_cmds "data offset 2^64-8" "$T/h6.data"
	# every sample's callchain length 2^60 (the nr field after ip/tid/time/... is
	# found by scanning: patch a u64 of value < 256 after each sample header)
	cp "$good" "$T/h7.data"
	perl -e 'open my $f, "+<", $ARGV[0] or die; binmode $f; local $/; my $d = <$f>;
		my ($off, $size) = unpack "x40 Q Q", $d; my $p = $off;
		while ($p + 8 <= $off + $size) { my ($t, $m, $s) = unpack "L S S", substr($d, $p, 8);
			last if $s < 8; if ($t == 9) { for (my $q = $p + 8; $q + 8 <= $p + $s; $q += 8) {
				my $v = unpack "Q", substr($d, $q, 8); if ($v > 0 && $v < 128 && $v * 8 == $p + $s - $q - 8) {
					substr($d, $q, 8) = pack "Q", 1 << 60; last } } } $p += $s }
		seek $f, 0, 0; print $f $d' "$T/h7.data"
	perfdata_cmds "callchain nr 2^60" "$T/h7.data"
else
	skip "no perf.data recording here (perf events not allowed): $(head -c 100 "$T/rec.err")"
fi

# random bytes, plain and behind the perf.data magic and header size
perl -e 'srand(42); print map { chr int rand 256 } 1 .. 65536' >"$T/random"
perfdata_cmds "random bytes" "$T/random"
text_cmds "random bytes" "$T/random"
{ printf 'PERFILE2\x68\0\0\0\0\0\0\0'; cat "$T/random"; } >"$T/random.data"
perfdata_cmds "random bytes after the magic" "$T/random.data"
: >"$T/empty"
perfdata_cmds "empty file" "$T/empty"
text_cmds "empty file" "$T/empty"

# a 5000-frame stack: folded, and a perf script sample
perl -e 'print join(";", map { "f$_" } 0 .. 4999), " 7\n"' >"$T/deep.folded"
check "5000-frame folded line" flamegraph "$T/deep.folded"
check "5000-frame folded line" flamegraph --reverse --inverted "$T/deep.folded"
check "5000-frame folded line" diff-folded "$T/deep.folded" "$T/deep.folded"
perl -e 'print "prog 123 1.0: 1 cpu-clock:\n"; printf "\t%x f%d (/bin/prog)\n", 4096 + $_, $_ for 0 .. 4999; print "\n"' \
	>"$T/deep.script"
check "5000-frame perf script sample" collapse "$T/deep.script"

# a 100 MB single line (no newline), in every text reader: three times the
# limit, as reading 100 MB alone takes 0.7 s of CPU in collapse and 0.9 s in
# flamegraph on this project's 2-CPU machine idle, over 1 s under the load of
# make check (a quadratic reader would take minutes)
head -c 100000000 /dev/zero | tr '\0' 'a' >"$T/line"
LIMIT1=$LIMIT LIMIT=$((LIMIT * 3))
for c in collapse flamegraph annotate; do check "100 MB single line" "$c" "$T/line"; done
check "100 MB single line" diff-folded "$T/line" "$T/line"
check "100 MB single line" report -i "$T/line" --stdio
LIMIT=$LIMIT1

# Cachegrind: a source "file" that never ends, a cut file, absurd counts
printf 'cmd: x\nevents: Ir\nfl=/dev/zero\nfn=main\n1 5\n2 3\n' >"$T/devzero.cg"
check "source file /dev/zero" annotate "$T/devzero.cg"
check "source file /dev/zero" annotate --auto=yes "$T/devzero.cg"
printf 'cmd: x\nevents: Ir Dr\nfl=a.c\nfn=main\n1 99999999999999999999999 1\n' >"$T/big.cg"
check "count beyond 2^64" annotate "$T/big.cg"
printf 'cmd: x\nevents: %s\nfl=a.c\nfn=m\n1 1\n' "$(perl -e 'print join " ", map { "E$_" } 1 .. 5000')" >"$T/many.cg"
check "5000 events" annotate "$T/many.cg"
done_testing
