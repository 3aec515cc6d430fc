#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""inline-cmp.py PERF.txt PERFKIT.txt — compare the inlined frames of two
`perf script` texts of one recording, sample by sample: samples whose other
frames differ (an unwinding difference, e.g. perfkit's unwinder stopping in
ld.so's exit path) are left out; every other sample must be the same, its
"(inlined)" lines included.  Blanks are squeezed.  Prints "N of M samples
compared, K with inlined frames, D differ" and exits 1 when D > 0, when the
sample counts differ, or when fewer than 9 in 10 samples could be compared."""
import re
import sys


def samples(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    return [re.sub(r"[ \t]+", " ", s).strip() for s in text.split("\n\n") if s.strip()]


def plain(s):
    return "\n".join(l for l in s.split("\n") if not l.endswith("(inlined)"))


a, b = samples(sys.argv[1]), samples(sys.argv[2])
if len(a) != len(b):
    print(f"{len(a)} samples against {len(b)}")
    sys.exit(1)
compared = inl = differ = 0
for x, y in zip(a, b):
    if x == y:
        compared += 1
        inl += "(inlined)" in x
    elif plain(x) == plain(y):
        compared += 1
        differ += 1
        if differ <= 3:
            print("differ:\n" + x + "\n--\n" + y)
print(f"{compared} of {len(a)} samples compared, {inl} with inlined frames, {differ} differ")
sys.exit(1 if differ or compared * 10 < len(a) * 9 else 0)
