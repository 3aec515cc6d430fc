#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mkfirstthread.py OUT — write a perf.data (perf.data-file-format.txt: one
# cpu-clock event, sample_type IP|TID|TIME|CALLCHAIN|PERIOD,
# sample_id_all) of two processes of one command, "tt": pid 8201 samples
# first (0x100), then pid 8202 samples 0x300 called from 0x400, then 8201
# twice the same.  Row 0x400 (comm,sym) is of both threads; its first
# sample is 8202's, so the row's thread is 8202 (perf: hist_entry->thread,
# the thread of the sample that made the entry), although 8201 came first.
import os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdgen import Gen, padded  # noqa: E402

out = sys.argv[1]
PERIOD, CTX_USER = 1000, 0xFFFFFFFFFFFFFE00
g = Gen(8201, "tt")
g.add(3, 0, struct.pack("<II", 8202, 8202) + padded("tt") + struct.pack("<IIQ", 8202, 8202, g.tick()))


def sample(pid, chain):   # IP, TID, TIME, PERIOD, CALLCHAIN (leaf first)
    ips = [CTX_USER] + chain
    g.add(9, 2, struct.pack("<QIIQQQ", chain[0], pid, pid, g.tick(), PERIOD, len(ips))
          + b"".join(struct.pack("<Q", ip) for ip in ips))


sample(8201, [0x100])
sample(8202, [0x300, 0x400])
sample(8201, [0x300, 0x400])
sample(8201, [0x300, 0x400])
# IP|TID|TIME|CALLCHAIN|PERIOD; sample_id_all
g.write(out, PERIOD, 0x1 | 0x2 | 0x4 | 0x20 | 0x100, 1 << 18)
