#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mkrows.py OUT N [CALLERS] — write a perf.data (perf.data-file-format.txt: one
# cpu-clock event, sample_type IP|TID|TIME|CALLCHAIN|PERIOD,
# sample_id_all) whose table has N rows of known order: row i (0 first) is
# process 7000 + i, named r00, r01, ... (a COMM record each), sampled N - i
# times at the user address 0x1000 + i (no mapping): the rows sort by
# address, each has its own command, and a screen's first row names how
# far the view has moved.
import os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdgen import Gen, padded  # noqa: E402

out, n = sys.argv[1], int(sys.argv[2])
# CALLERS (optional, 0): each sample's chain also holds that many callers,
# the same for all (0x9000, 0x9001, ...: rows of their own, first by
# Children), so each row has a call graph of a few lines
callers = int(sys.argv[3]) if len(sys.argv) > 3 else 0
PERIOD, CTX_USER = 1000000, 0xFFFFFFFFFFFFFE00
g = Gen(7000, "r00")
for i in range(1, n):
    pid = 7000 + i
    g.add(3, 0, struct.pack("<II", pid, pid) + padded("r%02d" % i) + struct.pack("<IIQ", pid, pid, g.tick()))
for i in range(n):
    pid, ip = 7000 + i, 0x1000 + i
    for _ in range(n - i):
        chain = [CTX_USER, ip] + [0x9000 + j for j in range(callers)]
        g.add(9, 2, struct.pack("<QIIQQQ", ip, pid, pid, g.tick(), PERIOD, len(chain)) +
              struct.pack("<%dQ" % len(chain), *chain))
# IP|TID|TIME|CALLCHAIN|PERIOD; sample_id_all
g.write(out, PERIOD, 0x1 | 0x2 | 0x4 | 0x20 | 0x100, 1 << 18)
