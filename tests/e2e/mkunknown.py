#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mkunknown.py OUT — write a perf.data (perf.data-file-format.txt: one
# cpu-clock event, sample_type IP|TID|TIME|CALLCHAIN|PERIOD,
# sample_id_all) of one process, pid 6262 "unk", with no mapping: every
# sample's one frame is an address of no DSO, shown by address.  Kernel
# and user samples share addresses (one row each, the level of its first
# sample), and the addresses differ in their low, middle and high bytes,
# so that report's order of such rows (by address) is seen whole.  Each
# sample has the same period: the rows tie.  --high: user addresses of
# 2^63 and more, which perf orders before the small ones (signed).
import os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdgen import Gen  # noqa: E402

out = sys.argv[1]
PID, PERIOD = 6262, 1000000
CTX_KERNEL, CTX_USER = 0xFFFFFFFFFFFFFF80, 0xFFFFFFFFFFFFFE00
g = Gen(PID, "unk")


def sample(ip, kernel):   # IP, TID, TIME, PERIOD, CALLCHAIN
    ips = [CTX_KERNEL if kernel else CTX_USER, ip]
    g.add(9, 1 if kernel else 2, struct.pack("<QIIQQQ", ip, PID, PID, g.tick(), PERIOD, len(ips))
          + b"".join(struct.pack("<Q", x) for x in ips))


# (address, kernel) in an order that is none of the report's; with --high
# (mkunknown.py --high OUT), user addresses of 2^63 and more among small
# ones (a broken chain's garbage), which perf orders as signed integers
if sys.argv[1] == "--high":
    out = sys.argv[2]
    order = ((0x10, False), (0xA432A0EF32ADA700, False), (0x0C, False), (0xA09BF00000003232, False))
else:
    order = ((0x0C, False), (0x2B00000B, True), (0x0B, True), (0x0A, True),
             (0x2B00000B, False), (0x0B, False), (0x1000000A, False), (0x0C, True))
for ip, k in order:
    sample(ip, k)
# IP|TID|TIME|CALLCHAIN|PERIOD; sample_id_all
g.write(out, PERIOD, 0x1 | 0x2 | 0x4 | 0x20 | 0x100, 1 << 18)
