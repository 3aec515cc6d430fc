#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make install's layout (scripts/install): installed into a temporary
# DESTDIR, the binary finds its helpers in ../libexec/perfkit/ with nothing
# from the build tree: perfkit cache and stat --simulate run the tool, mem
# record preloads the allocation hooks, calibrate's kernels are in place.
. "$(dirname "$0")/lib.sh"

D=$T/root
P=/opt/pk
unset PERFKIT_VALGRIND_LIB PERFKIT_CALIB_KERNELS
"$TOP/scripts/install" "$PK_BUILD" "$D" "$P" >"$T/inst.out" 2>&1
expect "scripts/install exits 0" test $? = 0
expect "bin/perfkit installed" test -x "$D$P/bin/perfkit"
expect "make install runs scripts/install with BUILD, DESTDIR, PREFIX" \
	sh -c 'make -s -n -C "$0" install BUILD="$1" DESTDIR=/x PREFIX=/y 2>/dev/null | grep -q "scripts/install \"$1\" \"/x\" \"/y\""' "$TOP" "$PK_BUILD"
"$TOP/scripts/install" "$PK_BUILD" "$D" relative >/dev/null 2>"$T/rel.err"
expect "a relative PREFIX: usage error (2)" test $? = 2

if [ -x "$PK_BUILD/calibrate/pkcalib" ]; then
	expect "calibrate's kernels in libexec/perfkit/pkcalib" test -x "$D$P/libexec/perfkit/pkcalib"
fi
if ! have valgrind || ! ls "$PK_BUILD"/vgtool/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi
EX=$PK_BUILD/examples
PK=$D$P/bin/perfkit
# run from elsewhere, the build tree out of reach by relative paths (a small
# program: what is checked is that the installed tool runs)
(cd "$T" && "$PK" cache -q --I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64 -o "$T/c.cg" -- "$EX/listchase" list 2000 1 >/dev/null 2>"$T/c.err")
rc=$?
if [ $rc = 0 ] && grep -q '^summary: [1-9]' "$T/c.cg"; then ok "installed perfkit cache runs the installed tool"
else not_ok "installed perfkit cache runs the installed tool (rc $rc)"; sed 's/^/# /' "$T/c.err"; fi
"$PK" stat --simulate -- "$EX/listchase" list 2000 1 >/dev/null 2>"$T/s.err"
expect "installed perfkit stat --simulate runs" test $? = 0
"$PK" mem record -o "$T/m.mem" --LL=1048576,16,64 -- "$EX/listchase" list 2000 1 >/dev/null 2>"$T/m.err"
"$PK" mem report -i "$T/m.mem" >"$T/m.out" 2>&1
expect "installed mem record finds the allocation hooks (heap blocks named)" grep -Eq '\[heap\] +new_node@listchase.c' "$T/m.out"
done_testing
