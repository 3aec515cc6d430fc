#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mkfirstthread.py OUT — write a perf.data (perf.data-file-format.txt: one
# cpu-clock event, sample_type IP|TID|TIME|CALLCHAIN|PERIOD,
# sample_id_all) of two processes of one command, "tt": pid 8201 samples
# first (0x100), then pid 8202 samples 0x300 called from 0x400, then 8201
# twice the same.  Row 0x400 (comm,sym) is of both threads; its first
# sample is 8202's, so the row's thread is 8202 (perf: hist_entry->thread,
# the thread of the sample that made the entry), although 8201 came first.
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdgen import Gen  # noqa: E402

out = sys.argv[1]
PERIOD = 1000
g = Gen(8201, "tt")
g.comm(8202, "tt")

g.user_sample(8201, [0x100], PERIOD)
g.user_sample(8202, [0x300, 0x400], PERIOD)
g.user_sample(8201, [0x300, 0x400], PERIOD)
g.user_sample(8201, [0x300, 0x400], PERIOD)
# IP|TID|TIME|CALLCHAIN|PERIOD; sample_id_all
g.write(out, PERIOD, 0x1 | 0x2 | 0x4 | 0x20 | 0x100, 1 << 18)
