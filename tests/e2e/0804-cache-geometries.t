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
# never sysfs; 0802, bad input, which asserts nothing about geometry; 0804
# cache-model, whose every run pins all the levels it simulates (I1, D1, LL,
# and L2 for the modern model), so that the description is never read for a
# geometry.  0801 leaves its count comparisons with cachegrind (all levels
# pinned) to its own run.
# Then: a simulated geometry other than the described one is warned about.
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
# each CPU's run of the other cache tests is a job of its own, all at once
# (simulations: the counts do not depend on the load; on two cores the three
# take about half as long as one after the other); their TAP is relayed
# afterwards, CPU by CPU, in the order the loop met them
others() { # dir cpu — the other cache tests under that CPU's geometry, into $T/cpu.NAME.*
	local dir=$1 cpu=$2 t name
	for t in "$TOP"/tests/e2e/08*-cache-*.t; do
		name=$(basename "$t" .t)
		case $name in 0800-*|0802-*|0804-cache-model|"$(basename "$0" .t)") continue ;; esac
		PERFKIT="$PERFKIT" PK_BUILD="$PK_BUILD" SHARED="$SHARED" PERFKIT_SYSFS_CPU=$dir \
			bash "$t" >"$T/$cpu.$name.tap" 2>"$T/$cpu.$name.err"
		echo $? >"$T/$cpu.$name.rc"
	done
}
ncpu=0 cpus=() jobs_=()
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
	others "$dir" "$cpu" &
	cpus+=("$cpu") jobs_+=($!)
done
wait "${jobs_[@]}"
for cpu in "${cpus[@]}"; do
	for t in "$TOP"/tests/e2e/08*-cache-*.t; do
		name=$(basename "$t" .t)
		case $name in 0800-*|0802-*|0804-cache-model|"$(basename "$0" .t)") continue ;; esac
		rc=$(cat "$T/$cpu.$name.rc" 2>/dev/null || echo none) n=0 plan=
		while IFS= read -r l; do
			case $l in
			"ok "*"# skip"*) n=$((n + 1)); skip "[$cpu] $name:${l#*# skip}" ;;
			"ok "*) n=$((n + 1)); ok "[$cpu] $name: ${l#ok * - }" ;;
			"not ok "*) n=$((n + 1)); not_ok "[$cpu] $name: ${l#not ok * - }" ;;
			1..*) plan=${l#1..} ;;
			"#"*) echo "$l" ;;
			esac
		done <"$T/$cpu.$name.tap"
		if [ "$rc" != 0 ] || [ "$plan" != "$n" ]; then
			grep -q '^not ok' "$T/$cpu.$name.tap" ||
				{ not_ok "[$cpu] $name: exit $rc, plan '$plan', $n tests"; tail -5 "$T/$cpu.$name.err" | sed 's/^/# /'; }
		fi
	done
done
expect "three CPUs or more described in tests/data/sysfs-cpu" [ "$ncpu" -ge 3 ]

# a simulated geometry that is not the host's described one is warned
# about, as cachegrind's "warning: simulated LL cache: …": the cachegrind
# model takes Valgrind's (CPUID), here against a described LL no CPUID gives
# (8 MiB, 2-way); pinned levels and the modern model (which takes the
# description) are not warned about
F=$T/fake/cpu0/cache
for i in 0:1:Data:32K:8 1:1:Instruction:32K:8 2:2:Unified:1024K:16 3:3:Unified:8192K:2; do
	IFS=: read -r n lv ty sz w <<<"$i"
	mkdir -p "$F/index$n"
	echo "$lv" >"$F/index$n/level"; echo "$ty" >"$F/index$n/type"; echo "$sz" >"$F/index$n/size"
	echo "$w" >"$F/index$n/ways_of_associativity"; echo 64 >"$F/index$n/coherency_line_size"
done
PERFKIT_SYSFS_CPU=$T/fake "$PERFKIT" cache -q --model=cachegrind -o "$T/w.out" -- true 2>"$T/w.err"
expect "cachegrind model, LL not the described one: exits 0" test $? = 0
expect "... warns on stderr: the simulated LL, the host's, the option to pin it" \
	grep -qE "^perfkit cache: warning: simulated LL cache: [0-9]+ B, 64 B, .*, not the host's 8388608 B, 64 B, 2-way \(.*fake\); pin it with --LL=8388608,2,64$" "$T/w.err"
PERFKIT_SYSFS_CPU=$T/fake "$PERFKIT" cache -q --model=cachegrind --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,2,64 \
	-o "$T/w2.out" -- true 2>"$T/w2.err"
expect_fail "pinned levels: no warning" grep -q "warning: simulated" "$T/w2.err"
PERFKIT_SYSFS_CPU=$T/fake "$PERFKIT" cache -q --model=modern -o "$T/w3.out" -- true 2>"$T/w3.err"
expect_fail "modern model on the described geometry: no warning" grep -q "warning: simulated" "$T/w3.err"
done_testing
