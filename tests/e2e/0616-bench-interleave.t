#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit bench interleaves runs (A B, B A, …): a command that gets slower
# with every run it makes (it reads and bumps a counter file, and sleeps
# 10 ms more each time) compared with itself is called slower in
# hyperfine's order (--no-interleave: all of A's runs come first) and not
# significantly different interleaved.  The drift (10 ms a run) is large
# against the noise of a loaded machine, so the outcome does not depend on it.
. "$(dirname "$0")/lib.sh"

cat >"$T/drift" <<'EOF2'
#!/bin/sh
k=$(cat "$1" 2>/dev/null || echo 0)
echo $((k + 1)) >"$1"
sleep "$(printf '0.%03d' $((10 * k)))"
EOF2
chmod +x "$T/drift"

"$PERFKIT" bench -N -w 1 -r 8 --no-interleave --export-json "$T/seq.json" \
	-n A "$T/drift $T/c1" -n B "$T/drift $T/c1" >"$T/seq" 2>&1
expect "--no-interleave: B (run after A) is called slower" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["order"] == "sequential"
c = d["comparisons"][0]
assert c["command"] == "B" and c["comparison"]["verdict"] == "higher", c
assert c["comparison"]["ratio"] > 1.5, c' "$T/seq.json"

"$PERFKIT" bench -N -w 1 -r 8 --export-json "$T/int.json" \
	-n A "$T/drift $T/c2" -n B "$T/drift $T/c2" >"$T/int" 2>&1
expect "interleaved: no significant difference, ratio within 10 %" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["order"] == "interleaved"
c = d["comparisons"][0]["comparison"]
assert c["verdict"] in ("no_difference", "below_min_effect"), c
assert c["ratio"] < 1.1, c' "$T/int.json"
expect "interleaved: both commands saw early and late runs" python3 -c '
import json, sys
a, b = json.load(open(sys.argv[1]))["results"]
assert min(a["times"]) < 0.1 and min(b["times"]) < 0.1 and max(a["times"]) > 0.1 and max(b["times"]) > 0.1, (a["times"], b["times"])' "$T/int.json"
diag "$(grep -E 'verdict|times' "$T/seq" "$T/int")"
done_testing
