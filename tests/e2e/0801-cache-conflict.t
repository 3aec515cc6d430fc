#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The three-line conflict test: 3 loads 4096 bytes apart, repeated 1000
# times.  With --D1=8192,2,64 (64 sets, 2 ways) the three lines share one
# set and LRU thrashes: 1000 D1 read misses on each line.  With 4 ways:
# 1 miss per line (the 3 compulsory ones).  Both models.
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
done_testing
