#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit bench records each run's max RSS (wait4): a command that
# allocates and touches 100 MiB more than the other is reported 100 MiB
# (± 5) higher, with its own verdict, in the text and every export.
# Both commands allocate something (20 and 120 MiB) so both stand above
# the floor Linux puts under a spawned child (the launcher's own pages
# count until the exec; the text and JSON say which it is).
. "$(dirname "$0")/lib.sh"

cat >"$T/alloc.c" <<'EOF2'
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 0;
	char *p = malloc(mib << 20);
	if (!p)
		return 1;
	memset(p, 1, mib << 20);
	return p[mib << 19] != 1;
}
EOF2
cc -O2 -o "$T/alloc" "$T/alloc.c" || { not_ok "build alloc.c"; done_testing; exit; }

"$PERFKIT" bench -N -r 5 --export-json "$T/r.json" --export-csv "$T/r.csv" --export-markdown "$T/r.md" \
	"$T/alloc 20" "$T/alloc 120" >"$T/r" 2>&1
expect "exit 0" test $? -eq 0
expect "JSON: 100 MiB ± 5 higher, significant, each run recorded" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a, b = d["results"]
assert len(a["max_rss_values"]) == 5 and len(b["max_rss_values"]) == 5
diff = (b["max_rss"] - a["max_rss"]) / 2**20
assert 95 <= diff <= 105, diff
c = d["comparisons"][0]["max_rss"]
assert 95 <= c["difference"] / 2**20 <= 105 and c["verdict"] == "higher", c
assert d["max_rss_floor"] > 0' "$T/r.json"
expect "text: each command's max RSS, mean ± σ" test "$(grep -c '^  Max RSS (mean ± σ): ' "$T/r")" = 2
expect "text: the RSS verdict line, +100 MiB" grep -Eq '^      Max RSS: \+(9[5-9]|10[0-5])\.[0-9] MiB, 95% CI .*: more memory \(significant at 95 %\)$' "$T/r"
expect "CSV: max_rss and its verdict" python3 -c '
import csv, sys
a, b = csv.DictReader(open(sys.argv[1]))
assert 95 <= float(b["max_rss_diff"]) / 2**20 <= 105 and b["max_rss_verdict"] == "higher", b' "$T/r.csv"
expect "Markdown: the Max RSS column and the RSS verdict" grep -Eq '\| \+(9[5-9]|10[0-5])\.[0-9] \[.*\] \| more memory \(significant at 95 %\) \|$' "$T/r.md"
diag "$(grep 'Max RSS' "$T/r")"

# two runs of one command: a difference that rounds to zero is "+0.0",
# never "-0.0" (a few kB less on the second side)
"$PERFKIT" bench -N -r 5 --export-markdown "$T/z.md" "$T/alloc 20" "$T/alloc 20 " >"$T/z" 2>&1
diag "$(grep 'Max RSS:' "$T/z")"
expect "a difference near 0 MiB is never printed -0.0" \
	sh -c "grep -q 'Max RSS: [-+][0-9]' '$T/z' && ! grep -q -- '-0\.0' '$T/z' '$T/z.md'"

# "at the floor": one rule for every command, on the mean shown (within 5 %
# or one σ of the floor), whatever a command's single lowest run.  Commands
# that touch 1 … 9 MiB sweep across the floor (perfkit's own max RSS, some
# 4 MiB since capstone is loaded only to decode, 7 MiB before), so some sit
# just above it.
sed 's/mib << 20/mib << 10/g; s/mib << 19/mib << 9/' "$T/alloc.c" >"$T/allock.c"
cc -O2 -o "$T/allock" "$T/allock.c" || { not_ok "build allock.c"; done_testing; exit; }
cmds=()
for k in 1024 2048 3072 3584 4096 4608 5120 5632 6144 6656 7168 8192 9216; do cmds+=("$T/allock $k"); done
"$PERFKIT" bench -N -r 3 -w 1 --export-json "$T/f.json" "${cmds[@]}" >"$T/f" 2>&1
diag "$(grep 'Max RSS' "$T/f")"
grep '^  Max RSS' "$T/f" | sed 's/.*(at the floor.*/1/; t; s/.*/0/' >"$T/f.text"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["max_rss_floor"]
for r in d["results"]:
    print(1 if r["max_rss"] <= f * 1.05 + r["max_rss_stddev"] else 0)' "$T/f.json" >"$T/f.rule"
same_file "at the floor: labelled exactly when the mean is within 5 % or one σ of the floor" "$T/f.rule" "$T/f.text"
# (under the sanitizers perfkit's own floor is above every command here)
if [ -n "${PK_SAN:-}" ]; then
	skip "commands on both sides of the floor: ASan's shadow memory lifts perfkit's floor above them"
else
	expect "... some commands are labelled, some not" sh -c "grep -q 1 '$T/f.rule' && grep -q 0 '$T/f.rule'"
fi
done_testing
