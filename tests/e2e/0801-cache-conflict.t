#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The three-line conflict test: 3 loads 4096 bytes apart, repeated 1000
# times.  With --D1=8192,2,64 (64 sets, 2 ways) the three lines share one
# set and LRU thrashes: 1000 D1 read misses on each line.  With 4 ways:
# 1 miss per line (the 3 compulsory ones).  Both models.
# Then --model=cachegrind against valgrind --tool=cachegrind, both run
# plainly: the program sees the same environment, and the events: and
# summary: lines are identical, with and without --branch-sim=yes.
. "$(dirname "$0")/lib.sh"

if ! have valgrind || ! ls "$PK_BUILD"/vgtool/lib/pkcache-* >/dev/null 2>&1; then
	skip "valgrind or the pkcache tool is not built (mk/cache.mk)"
	done_testing
	exit
fi
cat >"$T/conflict.c" <<'EOF'
static char buf[3 * 4096] __attribute__((aligned(4096)));

int main(void)
{
	volatile char *p = buf;
	int s = 0;

	for (int r = 0; r < 1000; r++) {
		s += p[0];
		s += p[4096];
		s += p[8192];
	}
	return s;
}
EOF
cc -O1 -g -o "$T/conflict" "$T/conflict.c" || { not_ok "build conflict.c"; done_testing; exit; }
L1=$(grep -n 'p\[0\]' "$T/conflict.c" | cut -d: -f1)

# Dr and D1mr of conflict.c line N, from the per-line table
line_counts() { # file line
	"$PERFKIT" annotate "$1" --show=Dr,D1mr --threshold=0 --auto=no |
		awk -v want="conflict.c:$2" '/^-- Lines/ { t = 1; next }
			t && NF >= 3 { n = split($NF, a, "/"); if (a[n] == want) { gsub(",", ""); print $1, $2; exit } }'
}

for model in cachegrind modern; do
	for assoc in 2 4; do
		out=$T/$model-$assoc
		if ! "$PERFKIT" cache -q --model=$model --D1=8192,$assoc,64 -o "$out" "$T/conflict" 2>"$out.err"; then
			:	# the program's exit status is s: not an error here
		fi
		[ -s "$out" ] || { not_ok "$model $assoc-way: output written"; cat "$out.err" | sed 's/^/# /'; continue; }
		want=$([ $assoc = 2 ] && echo "1000 1000" || echo "1000 1")
		for k in 0 1 2; do
			got=$(line_counts "$out" $((L1 + k)))
			if [ "$got" = "$want" ]; then ok "$model --D1=8192,$assoc,64: line $((L1 + k)) Dr/D1mr = $want"
			else not_ok "$model --D1=8192,$assoc,64: line $((L1 + k)) Dr/D1mr = $want, got '$got'"; fi
		done
	done
done
# valgrind --tool=cachegrind and perfkit cache --model=cachegrind, run as a
# user runs them: nothing added to or removed from the environment.  Both
# are started through env(1) for one reason only: bash exports `_` = the
# path of the command it runs, which would differ (the program's stack and
# so its counts move with the environment's size).
cat >"$T/env.c" <<'EOF'
#include <stdio.h>
extern char **environ;
int main(void)
{
	for (char **e = environ; *e; e++)
		puts(*e);
	return 0;
}
EOF
G=(--I1=32768,8,64 --D1=8192,2,64 --LL=8388608,16,64)
if cc -O1 -o "$T/env" "$T/env.c"; then
	env valgrind -q --tool=cachegrind --cache-sim=yes "${G[@]}" --cachegrind-out-file=/dev/null "$T/env" >"$T/env.vg" 2>/dev/null
	env "$PERFKIT" cache -q --model=cachegrind "${G[@]}" -o /dev/null "$T/env" >"$T/env.pk" 2>"$T/env.err"
	expect "the program's environment is printed" grep -q '^PATH=' "$T/env.pk"
	same_file "the program's environment is the same under perfkit cache as under cachegrind" "$T/env.vg" "$T/env.pk"
	# VALGRIND_LIB and PERFKIT_* only as this test's own environment has them
	env | grep -E '^(VALGRIND_LIB|PERFKIT_[A-Z_]*)=' | sort >"$T/env.own"
	grep -E '^(VALGRIND_LIB|PERFKIT_[A-Z_]*)=' "$T/env.pk" | sort >"$T/env.pkvars"
	same_file "... and holds no VALGRIND_LIB or PERFKIT_* variable of perfkit's own" "$T/env.own" "$T/env.pkvars"
else
	not_ok "build env.c"
fi
# Run straight from bash (no env(1)): bash exports `_` = the command's path,
# /usr/bin/valgrind for one, perfkit's for the other; perfkit hands the
# program the `_` a shell would have set for `valgrind` (vgrun.c), so the
# environment and the counts are cachegrind's.
if [ -x "$T/env" ]; then
	valgrind -q --tool=cachegrind --cache-sim=yes "${G[@]}" --cachegrind-out-file=/dev/null "$T/env" >"$T/penv.vg" 2>/dev/null
	"$PERFKIT" cache -q --model=cachegrind "${G[@]}" -o /dev/null "$T/env" >"$T/penv.pk" 2>/dev/null
	expect "run from bash: the program sees _=valgrind's path under cachegrind" grep -q '^_=.*/valgrind$' "$T/penv.vg"
	same_file "run from bash: the program's environment (with _) is cachegrind's" "$T/penv.vg" "$T/penv.pk"
fi
# The rest compares the counts of --model=cachegrind, all levels pinned,
# with cachegrind's: nothing there is taken from a described CPU, so under
# 0804-cache-geometries (PERFKIT_SYSFS_CPU set) it is left to the plain run.
if [ -n "${PERFKIT_SYSFS_CPU:-}" ]; then done_testing; exit; fi
valgrind -q --tool=cachegrind --cache-sim=yes "${G[@]}" --cachegrind-out-file="$T/pvg" "$T/conflict" >/dev/null 2>&1
"$PERFKIT" cache -q --model=cachegrind "${G[@]}" -o "$T/ppk" "$T/conflict" >/dev/null 2>&1
grep -E '^(events|summary):' "$T/pvg" | sed 's/ *$//' >"$T/tot-pvg"
grep -E '^(events|summary):' "$T/ppk" | sed 's/ *$//' >"$T/tot-ppk"
expect "run from bash: cachegrind wrote events: and summary:" [ "$(wc -l <"$T/tot-pvg")" = 2 ]
same_file "run from bash: events: and summary: identical to cachegrind's" "$T/tot-pvg" "$T/tot-ppk"
for bs in no yes; do
	opt=(); [ $bs = yes ] && opt=(--branch-sim=yes)	# perfkit's default must be cachegrind's: no
	env valgrind -q --tool=cachegrind --cache-sim=yes --branch-sim=$bs "${G[@]}" \
		--cachegrind-out-file="$T/vg-$bs" "$T/conflict" >/dev/null 2>"$T/vg-$bs.err"
	env "$PERFKIT" cache -q --model=cachegrind "${opt[@]}" "${G[@]}" -o "$T/pk-$bs" "$T/conflict" \
		>/dev/null 2>"$T/pk-$bs.err"
	# (cachegrind 3.19 ends its events: line with a blank when branch simulation is off)
	grep -E '^(events|summary):' "$T/vg-$bs" | sed 's/ *$//' >"$T/tot-vg-$bs"
	grep -E '^(events|summary):' "$T/pk-$bs" | sed 's/ *$//' >"$T/tot-pk-$bs"
	expect "branch-sim=$bs: cachegrind wrote events: and summary:" [ "$(wc -l <"$T/tot-vg-$bs")" = 2 ]
	same_file "branch-sim=$bs: events: and summary: identical to cachegrind's, both run plainly" \
		"$T/tot-vg-$bs" "$T/tot-pk-$bs"
done
expect "branch events only with --branch-sim=yes" \
	bash -c "! grep -q ' Bc' '$T/tot-pk-no' && grep -q ' Bc Bcm Bi Bim' '$T/tot-pk-yes'"
done_testing
