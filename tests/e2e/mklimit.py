#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mklimit.py OUT — write a perf.data (perf.data-file-format.txt: one
# cpu-clock event, sample_type IP|TID|TIME|CALLCHAIN|PERIOD,
# sample_id_all) for --percent-limit in the views: process 7000 "pl"
# (user addresses of no mapping, each its own row), and process 7001 whose
# command name is 15 characters long:
#   pl:    0x200 -> 0x100      8 samples
#   pl:    0x200               1 sample   (0x200: Children 90 %, Self 10 %)
#   7001:  0x300               1 sample   (10 %: its row under a limit of 20,
#                                          its command the widest)
import os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdgen import Gen, padded  # noqa: E402

out = sys.argv[1]
PERIOD, CTX_USER = 1000000, 0xFFFFFFFFFFFFFE00
g = Gen(7000, "pl")
g.add(3, 0, struct.pack("<II", 7001, 7001) + padded("a-long-command1") + struct.pack("<IIQ", 7001, 7001, g.tick()))
for pid, chain, n in ((7000, [0x100, 0x200], 8), (7000, [0x200], 1), (7001, [0x300], 1)):
    for _ in range(n):
        ips = [CTX_USER] + chain
        g.add(9, 2, struct.pack("<QIIQQQ", chain[0], pid, pid, g.tick(), PERIOD, len(ips)) +
              struct.pack("<%dQ" % len(ips), *ips))
g.write(out, PERIOD, 0x1 | 0x2 | 0x4 | 0x20 | 0x100, 1 << 18)
