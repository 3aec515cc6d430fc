#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perf's --symfs DIR and --kallsyms FILE (report, script; --symfs for
# annotate): a recording read where its files are not, as a recording of
# another machine is.  The program moves from where it ran to DIR + that
# path: without --symfs its rows are addresses, with it its functions are
# named.  Under a symfs the kernel is named only from --kallsyms (perf's
# dso.c skips the running kernel's and the build-id cache then); a
# --kallsyms file names it whatever the running kernel's names are (its
# functions of lower-case names renamed "ks_..." here).  A
# --kallsyms that cannot be read: one line naming it, exit 1.
# Recorded with -N and HOME=$T: no build-id cache to find the program in.
. "$(dirname "$0")/lib.sh"

if ! can_perf_event; then skip "perf events not permitted here"; done_testing; exit; fi
export HOME=$T
mkdir -p "$T/bin"
cp "$PK_BUILD/tests/workloads/calltree" "$T/bin/ct"
# the program's samples, and a syscall loop's for kernel rows
"$PERFKIT" record -N -g -F 2000 -o "$T/p.data" -- sh -c "'$T/bin/ct' 150; dd if=/dev/zero of=/dev/null bs=1 count=300000 2>/dev/null" >/dev/null 2>&1
mkdir -p "$T/root$T/bin"
mv "$T/bin/ct" "$T/root$T/bin/ct"
rows() { grep -v '^#' | grep '%' | sed -E 's/ +/ /g; s/ $//'; }
R=("$PERFKIT" report -i "$T/p.data" --stdio --no-children -g none --sort dso,sym)
"${R[@]}" 2>/dev/null | rows >"$T/plain"
expect "moved away: ct's rows are addresses" grep -q ' ct \[\.\] 0x' "$T/plain"
expect_fail "... and no function c" grep -q ' ct \[\.\] c$' "$T/plain"
"${R[@]}" --symfs "$T/root" 2>/dev/null | rows >"$T/symfs"
expect "--symfs: ct's function c named" grep -q ' ct \[\.\] c$' "$T/symfs"
expect "... d" grep -q ' ct \[\.\] d$' "$T/symfs"
expect "... no address rows left for ct" test "$(grep -c ' ct \[\.\] 0x' "$T/symfs")" = 0
"${R[@]}" --symfs "$T/root/" 2>/dev/null | rows >"$T/symfs2"
same_file "--symfs DIR/: the same" "$T/symfs" "$T/symfs2"
"${R[@]}" --symfs / 2>/dev/null | rows >"$T/root1"
same_file "--symfs /: the paths themselves" "$T/plain" "$T/root1"

# the kernel: named from /proc/kallsyms, none under a symfs, a file's names
# with --kallsyms (when this kernel shows its addresses and was sampled)
if grep -q '\[kernel.kallsyms\] \[k\] [a-z_]' "$T/plain"; then
	expect "--symfs: kernel rows are addresses" grep -q '\[kernel.kallsyms\] \[k\] 0xffff' "$T/symfs"
	expect_fail "... every one" grep -q '\[kernel.kallsyms\] \[k\] [a-z_]' "$T/symfs"
	sed -E 's/^([0-9a-f]+ [tTwW] )([a-z])/\1ks_\2/' /proc/kallsyms >"$T/ks"
	"${R[@]}" --kallsyms "$T/ks" 2>/dev/null | rows >"$T/ks.rows"
	expect "--kallsyms: the file's names" grep -q '\[kernel.kallsyms\] \[k\] ks_' "$T/ks.rows"
	expect_fail "... only those (of names in lower case)" grep -qE '\[kernel.kallsyms\] \[k\] ([a-jl-z]|k[^s]|ks[^_])' "$T/ks.rows"
	"${R[@]}" --symfs "$T/root" --kallsyms "$T/ks" 2>/dev/null | rows >"$T/both"
	expect "--symfs and --kallsyms: the kernel from the file" grep -q '\[kernel.kallsyms\] \[k\] ks_' "$T/both"
	expect "... ct's c from the symfs" grep -q ' ct \[\.\] c$' "$T/both"
	"$PERFKIT" script -i "$T/p.data" --symfs "$T/root" --kallsyms "$T/ks" >"$T/script" 2>/dev/null
	expect "script --symfs --kallsyms: c+0x.. (ct)" grep -qE " c\+0x[0-9a-f]+ \(/.*/bin/ct\)$" "$T/script"
	expect "script --symfs --kallsyms: ks_ names ([kernel.kallsyms])" grep -qE " ks_[a-z_0-9.]+\+0x[0-9a-f]+ \(\[kernel.kallsyms\]\)$" "$T/script"
	if have perf; then
		for o in "--symfs $T/root" "--kallsyms $T/ks" "--symfs $T/root --kallsyms $T/ks"; do
			perf report -i "$T/p.data" --stdio --no-children -g none --sort dso,sym $o 2>/dev/null | rows | sort >"$T/perf.rows"
			"${R[@]}" $o 2>/dev/null | rows | sort >"$T/pk.rows"
			same_file "perf report $o: the same rows" "$T/perf.rows" "$T/pk.rows"
		done
	else
		skip "perf (the oracle) is not installed"
	fi
else
	skip "no kernel row named here (kallsyms hidden, or no kernel sample)"
fi
"$PERFKIT" annotate -i "$T/p.data" --symfs "$T/root" c >"$T/ann" 2>/dev/null
expect "annotate --symfs: c's instructions" grep -q '<c>:' "$T/ann"
"$PERFKIT" report -i "$T/p.data" --stdio --kallsyms "$T/nope" >"$T/out" 2>"$T/err"
expect "--kallsyms missing: exit 1" test $? = 1
expect "... one line naming it" test "$(wc -l <"$T/err")" = 1 -a -n "$(grep -F "$T/nope" "$T/err")"
expect "... nothing on stdout" test ! -s "$T/out"
: >"$T/plainfile"
"$PERFKIT" script -i "$T/p.data" --symfs "$T/plainfile" >/dev/null 2>"$T/err"
expect "script --symfs FILE: warned, not a directory" grep -q -- "--symfs $T/plainfile: Not a directory" "$T/err"
"$PERFKIT" report -i "$T/p.data" --stdio --symfs "$T/none" >/dev/null 2>"$T/err"
expect "report --symfs missing: warned" grep -q -- "--symfs $T/none: No such file or directory" "$T/err"
timeout 20 "$PERFKIT" script -i "$T/p.data" --kallsyms /dev/zero >"$T/out" 2>"$T/err"
expect "--kallsyms /dev/zero: exit 1 at once (never read)" test $? = 1
expect "... said: not a regular file" grep -q "/dev/zero: not a regular file" "$T/err"
done_testing
