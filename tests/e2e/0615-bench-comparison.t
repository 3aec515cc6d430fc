#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit bench: the comparison (ratio, interval, p-values, verdict) is
# data, carried by every export — JSON's "comparisons", the CSV's columns,
# the Markdown's comparison table — with the same figures as the text.
. "$(dirname "$0")/lib.sh"

"$PERFKIT" bench -N -r 6 --export-json "$T/a.json" --export-csv "$T/a.csv" --export-markdown "$T/a.md" \
	'sleep 0.02' 'sleep 0.06' >"$T/a" 2>"$T/a.err"
expect "two commands: exit 0" test $? -eq 0
expect "JSON: the comparison object, its verdict on Welch's test, the order said" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["order"] == "interleaved", d["order"]
assert d["reference"] == "sleep 0.02", d["reference"]
(c,) = d["comparisons"]
assert c["command"] == "sleep 0.06" and c["reference"] == "sleep 0.02" and c["metric"] == "wall", c
m = c["comparison"]
for k in ("ratio", "ratio_stddev", "ratio_ci95", "difference", "difference_ci95", "welch_p",
          "mann_whitney_p", "verdict", "verdict_test", "significant"):
    assert k in m, k
assert 1.5 < m["ratio"] < 5 and m["ratio_ci95"][0] < m["ratio"] < m["ratio_ci95"][1], m
assert m["welch_p"] < 0.05 and m["verdict"] == "higher" and m["significant"] is True, m
assert m["verdict_test"] == "welch", m
for k in ("cpu", "max_rss"):
    assert c[k]["verdict"] in ("higher", "lower", "no_difference", "below_min_effect"), c[k]
for r in d["results"]:
    assert r["max_rss"] > 0 and len(r["max_rss_values"]) == 6, r
' "$T/a.json"
ratio=$(python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["comparisons"][0]["comparison"]["ratio"])' "$T/a.json")
expect "the text prints the exported ratio ($ratio)" grep -q "^    $ratio ± .* times faster than 'sleep 0.06'" "$T/a"
expect "CSV: ratio, interval, p-values and verdict on the compared row" python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ref, other = rows
assert ref["verdict"] == "reference" and ref["order"] == "interleaved", ref
assert float(other["ratio_ci_lo"]) < float(other["ratio"]) < float(other["ratio_ci_hi"]), other
assert float(other["welch_p"]) < 0.05 and other["verdict"] == "higher", other
assert other["max_rss_verdict"] and other["cpu_verdict"] and float(other["max_rss"]) > 0, other
' "$T/a.csv"
expect "Markdown: the comparison table with the verdict" grep -q '^| `sleep 0.06` | [0-9.]* ± [0-9.]* | \[[0-9.]*, [0-9.]*\] | [0-9.e-]* | [0-9.e-]* | slower (significant at 95 %) |' "$T/a.md"
expect "Markdown: the text's words (slower), not higher/lower" grep -q "'sleep 0.06' is slower than 'sleep 0.02'" "$T/a"
expect_fail "... no 'higher' or 'lower' in the Markdown" grep -Ewq 'higher|lower' "$T/a.md"
expect "Markdown: the order and the test said" grep -q "^Runs interleaved; each command against .*Welch's t-test" "$T/a.md"

# A/A: no significant difference, in every export
"$PERFKIT" bench -N -r 5 --export-json "$T/b.json" 'sleep 0.02' 'sleep 0.020' >"$T/b" 2>&1
expect "A/A: the verdict is exported (no_difference or below the minimum effect, or higher at most by chance)" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]["comparison"]
assert c["verdict"] in ("no_difference", "below_min_effect", "higher"), c
assert c["significant"] == (c["verdict"] == "higher"), c' "$T/b.json"

# --no-interleave: said in the text and the exports
"$PERFKIT" bench -N -r 2 --no-interleave --export-json "$T/s.json" 'sleep 0.01' 'sleep 0.02' >"$T/s" 2>&1
expect "--no-interleave: JSON order is sequential" grep -q '"order": "sequential"' "$T/s.json"
expect_fail "--no-interleave: no interleaving line" grep -q '^Runs interleaved' "$T/s"
expect "interleaved: the text says so" grep -q '^Runs interleaved' "$T/a"
done_testing
