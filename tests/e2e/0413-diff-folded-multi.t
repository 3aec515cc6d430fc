#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit diff-folded OLD1 OLD2 … -- NEW1 NEW2 …: per function, inclusive
# cost per profile, Welch's t-test across the profiles, Benjamini-Hochberg
# over the functions.  Seeded synthetic profiles: f doubles (marked, with
# its interval and p), g only varies by noise (not marked), strtod is gone
# and myparse new (shown with their share); one profile a side tests
# nothing; usage errors.
. "$(dirname "$0")/lib.sh"

python3 - "$T" <<'EOF2'
import random, sys
random.seed(7)
def n(m):
    return max(0, int(round(random.gauss(m, m ** 0.5))))
for side in ("old", "new"):
    for i in range(6):
        with open(f"{sys.argv[1]}/{side}{i}.folded", "w") as f:
            f.write(f"prog;main;compute;f {n(300 if side == 'old' else 600)}\n")
            f.write(f"prog;main;compute;g {n(400)}\n")
            if side == "old":
                f.write(f"prog;main;parse;strtod {n(120)}\n")
            else:
                f.write(f"prog;main;parse;myparse {n(40)}\n")
EOF2
"$PERFKIT" diff-folded --json "$T/d.json" "$T"/old*.folded -- "$T"/new*.folded >"$T/d" 2>"$T/err"
expect "exit 0" test $? -eq 0
expect "header: what was compared and how" grep -q "^# 6 OLD profiles, 6 NEW profiles; inclusive cost as % of OLD's mean total$" "$T/d"
expect "f marked, with change, interval, p and q" grep -Eq '^\* +[0-9.]+ +[0-9.]+ +\+[0-9.]+ \[\+[0-9.]+, \+[0-9.]+\] +[0-9.e-]+ +[0-9.e-]+  f$' "$T/d"
expect "g not marked" grep -Eq '^  +[0-9.]+ +[0-9.]+ +[-+][0-9.]+ \[.*\] +[0-9.e-]+ +[0-9.e-]+  g$' "$T/d"
expect "strtod gone, with its share" grep -Eq '^\* +[0-9.]+ +gone +-[0-9.]+ .* strtod$' "$T/d"
expect "myparse new, with its share" grep -Eq '^\* +new +[0-9.]+ +\+[0-9.]+ .* myparse$' "$T/d"
expect "JSON: the same rows" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["name"]: x for x in d["rows"]}
assert r["f"]["significant"] and not r["g"]["significant"], r
assert r["strtod"]["kind"] == "gone" and r["myparse"]["kind"] == "new", r
assert d["profiles_old"] == 6 and d["profiles_new"] == 6 and d["test"] == "welch", d' "$T/d.json"

"$PERFKIT" diff-folded "$T/old0.folded" -- "$T/new0.folded" >"$T/one" 2>&1; rc=$?
expect "one profile a side: exit 0, nothing marked" sh -c "test $rc -eq 0 && ! grep -q '^\*' '$T/one'"
expect "... and says why" grep -q 'one profile on a side: no test' "$T/one"
"$PERFKIT" diff-folded --share "$T"/old*.folded -- "$T"/new*.folded >"$T/share" 2>&1
expect "--share: shares of each profile's total" grep -q "each profile's own total (shares)" "$T/share"

"$PERFKIT" diff-folded "$T/old0.folded" -- >/dev/null 2>"$T/e1"
expect "no NEW profile: usage error (2)" test $? -eq 2
"$PERFKIT" diff-folded -o "$T/x.svg" "$T/old0.folded" "$T/new0.folded" >/dev/null 2>"$T/e2"
expect "-o without '--': usage error (2)" test $? -eq 2
"$PERFKIT" diff-folded "$T/old0.folded" -- "$T/missing.folded" >/dev/null 2>"$T/e3"; rc=$?
expect "a missing profile: exit 1, named" sh -c "test $rc -eq 1 && grep -q missing.folded '$T/e3'"
"$PERFKIT" diff-folded --min-effect x "$T/old0.folded" -- "$T/new0.folded" >/dev/null 2>&1
expect "bad --min-effect: usage error (2)" test $? -eq 2
done_testing
