#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mkthreadties.py OUT — write a perf.data (perf.data-file-format.txt: one
# cpu-clock event, sample_type IP|TID|TIME|CALLCHAIN|PERIOD,
# sample_id_all) of two processes with no mapping (rows by address) whose
# rows tie on Children across the processes:
#   ta (pid 8101): 2 samples of 0x100 <- 0x200 <- 0x300 <- 0x400 (leaf
#                  first), period 1000 each: row 0x300 has Children 2000,
#                  Self 0 and 2 frames below it;
#   tb (pid 8102): 0x600 sampled itself once and once under 0x700 <- 0x600:
#                  row 0x600 has Children 2000, Self 1000, 1 frame below.
# perf compares the chains' depth of equal rows only when they are of one
# thread (hist_entry->thread); rows of two threads go by Self: tb's 0x600
# before ta's 0x300.
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdgen import Gen  # noqa: E402

out = sys.argv[1]
PERIOD = 1000
g = Gen(8101, "ta")
g.comm(8102, "tb")
for _ in range(2):
    g.user_sample(8101, [0x100, 0x200, 0x300, 0x400], PERIOD)
g.user_sample(8102, [0x600], PERIOD)
g.user_sample(8102, [0x700, 0x600], PERIOD)
# IP|TID|TIME|CALLCHAIN|PERIOD; sample_id_all
g.write(out, PERIOD, 0x1 | 0x2 | 0x4 | 0x20 | 0x100, 1 << 18)
