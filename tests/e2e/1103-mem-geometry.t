#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit mem record takes its default cache geometry as perfkit cache
# --model=modern does (hostcache_read_host: PERFKIT_SYSFS_CPU or sysfs), so
# the report's header shows the described CPU's levels, not Valgrind's
# CPUID figure; a level it cannot simulate gets perfkit cache's warning.
. "$(dirname "$0")/lib.sh"

if ! have valgrind || ! ls "$PK_BUILD"/vgtool/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi
EX=$PK_BUILD/examples
SYS=$TOP/tests/data/sysfs-cpu

# skylake-sp: LL 33792K 11-way, made simulable as 35651584 B 17-way (0804)
PERFKIT_SYSFS_CPU=$SYS/skylake-sp "$PERFKIT" mem record -o "$T/sk.mem" -- "$EX/listchase" list 2000 1 >/dev/null 2>"$T/sk.err"
"$PERFKIT" mem report -i "$T/sk.mem" >"$T/sk.out" 2>&1
expect "skylake-sp: header shows the fixture's LL" grep -qx '# LL cache: 35651584 B, 64 B, 17-way associative' "$T/sk.out"
expect "skylake-sp: header shows the fixture's L2" grep -qx '# L2 cache: 1048576 B, 64 B, 16-way associative' "$T/sk.out"
expect "skylake-sp: no warning" sh -c '! grep -q warning "$0"' "$T/sk.err"

# sapphire-rapids, LL pinned: the pin wins, the other levels are the fixture's
PERFKIT_SYSFS_CPU=$SYS/sapphire-rapids "$PERFKIT" mem record -o "$T/sr.mem" --LL=1048576,16,64 -- "$EX/listchase" list 2000 1 >/dev/null 2>&1
"$PERFKIT" mem report -i "$T/sr.mem" >"$T/sr.out" 2>&1
expect "pinned LL kept" grep -qx '# LL cache: 1048576 B, 64 B, 16-way associative' "$T/sr.out"
expect "sapphire-rapids D1 taken" grep -qx '# D1 cache: 49152 B, 64 B, 12-way associative' "$T/sr.out"

# a described LL no simulation takes (8-B lines): perfkit cache's warning
cp -r "$SYS/zen4" "$T/fake"
echo 8 >"$T/fake/cpu0/cache/index3/coherency_line_size"
PERFKIT_SYSFS_CPU=$T/fake "$PERFKIT" mem record -o "$T/w.mem" -- "$EX/listchase" list 2000 1 >/dev/null 2>"$T/w.err"
expect "unsimulable LL: warns as perfkit cache does" \
	grep -qE "^perfkit mem: warning: simulated LL cache: [0-9]+ B, 64 B, .*, not the host's 33554432 B, 8 B, 16-way \(.*fake\); pin it with --LL=33554432,16,8$" "$T/w.err"

# PERFKIT_SYSFS_CPU naming nothing: an error, as for perfkit cache
PERFKIT_SYSFS_CPU=$T/nowhere "$PERFKIT" mem record -o "$T/n.mem" -- true >/dev/null 2>"$T/n.err"
expect "PERFKIT_SYSFS_CPU without a description: exit 1, no file" test $? = 1 -a ! -e "$T/n.mem"
done_testing
