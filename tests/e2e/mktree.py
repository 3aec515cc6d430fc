#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mktree.py OUT — write a perf.data (perf.data-file-format.txt: one
# cpu-clock event, sample_type IP|TID|TIME|CALLCHAIN|PERIOD,
# sample_id_all) of one process, "tree", whose stacks branch (no mapping:
# each function is its address):
#   0x9000 -> 0x9100 -> 0x9110      6 samples
#   0x9000 -> 0x9100 -> 0x9120      3 samples
#   0x9000 -> 0x9200 -> 0x9210      1 sample
# so that 0x9000's call graph (Children) has a node with two callees and
# one with one.
import os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdgen import Gen  # noqa: E402

out = sys.argv[1]
PERIOD, CTX_USER = 1000000, 0xFFFFFFFFFFFFFE00
g = Gen(7000, "tree")
for leaf, mid, n in ((0x9110, 0x9100, 6), (0x9120, 0x9100, 3), (0x9210, 0x9200, 1)):
    for _ in range(n):
        chain = [CTX_USER, leaf, mid, 0x9000]
        g.add(9, 2, struct.pack("<QIIQQQ", leaf, 7000, 7000, g.tick(), PERIOD, len(chain)) +
              struct.pack("<%dQ" % len(chain), *chain))
g.write(out, PERIOD, 0x1 | 0x2 | 0x4 | 0x20 | 0x100, 1 << 18)
