#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cache tests against real CPUs' cache geometries, so that none depends
# on the host's.  For each tree in tests/data/sysfs-cpu/ (laid out like
# /sys/devices/system/cpu; see its README.md): perfkit cache --model=modern
# given no geometry takes exactly that CPU's (PERFKIT_SYSFS_CPU, hostcache.h;
# an L3 whose set count is not a power of two rounded as cachegrind does),
# and every other tests/e2e/08*-cache-*.t passes with it: their TAP lines are
# relayed here, prefixed with the CPU's folder.  Left out: 0800, which runs
# --model=cachegrind only, whose default geometry is Valgrind's own (CPUID),
# never sysfs; 0802, bad input, which asserts nothing about geometry.
. "$(dirname "$0")/lib.sh"

if ! have valgrind || ! ls "$PK_BUILD"/vgtool/lib/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi
D=$TOP/tests/data/sysfs-cpu
# I1|D1|L2|LL as "SIZE ASSOC", worked out by hand from the trees' files
declare -A want=(
	[skylake-sp]="32768 8|32768 8|1048576 16|35651584 17"
	[sapphire-rapids]="32768 8|49152 12|2097152 16|109051904 26"
	[zen4]="32768 8|32768 8|1048576 8|33554432 16"
)
ncpu=0
for dir in "$D"/*/; do
	cpu=$(basename "$dir")
	ncpu=$((ncpu + 1))
	if [ -z "${want[$cpu]:-}" ]; then not_ok "$cpu: no expected geometry for it in this test"; continue; fi
	PERFKIT_SYSFS_CPU=$dir "$PERFKIT" cache -q -o "$T/$cpu.out" -- true 2>"$T/$cpu.err"
	got=$(awk '/^desc: (I1|D1|L2|LL) cache:/ {
			a = $8; sub(/-way$/, "", a); if ($8 == "direct-mapped") a = 1; print $4, a }' "$T/$cpu.out" 2>/dev/null |
		paste -sd'|')
	if [ "$got" = "${want[$cpu]}" ]; then ok "$cpu: the modern model takes its I1|D1|L2|LL ($got)"
	else not_ok "$cpu: the modern model takes its I1|D1|L2|LL: want '${want[$cpu]}', got '$got'"; sed 's/^/# /' "$T/$cpu.err"; fi

	for t in "$TOP"/tests/e2e/08*-cache-*.t; do
		name=$(basename "$t" .t)
		case $name in 0800-*|0802-*|"$(basename "$0" .t)") continue ;; esac
		PERFKIT="$PERFKIT" PK_BUILD="$PK_BUILD" SHARED="$SHARED" PERFKIT_SYSFS_CPU=$dir \
			bash "$t" >"$T/tap" 2>"$T/tap.err"
		rc=$? n=0 plan=
		while IFS= read -r l; do
			case $l in
			"ok "*"# skip"*) n=$((n + 1)); skip "[$cpu] $name:${l#*# skip}" ;;
			"ok "*) n=$((n + 1)); ok "[$cpu] $name: ${l#ok * - }" ;;
			"not ok "*) n=$((n + 1)); not_ok "[$cpu] $name: ${l#not ok * - }" ;;
			1..*) plan=${l#1..} ;;
			"#"*) echo "$l" ;;
			esac
		done <"$T/tap"
		if [ "$rc" -ne 0 ] || [ "$plan" != "$n" ]; then
			grep -q '^not ok' "$T/tap" || { not_ok "[$cpu] $name: exit $rc, plan '$plan', $n tests"; tail -5 "$T/tap.err" | sed 's/^/# /'; }
		fi
	done
done
expect "three CPUs or more described in tests/data/sysfs-cpu" [ "$ncpu" -ge 3 ]
done_testing
