#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mkchainlvl.py OUT — write a perf.data (perf.data-file-format.txt: one
# cpu-clock event, sample_type IP|TID|TIME|CALLCHAIN|PERIOD,
# sample_id_all) of one process, pid 7373 "lvl", whose call chains mix
# kernel and user contexts, addresses of no mapping and addresses of a
# mapped file that does not exist (no symbols).  perf shows a caller of
# no mapping at the level of the frame before it in the chain's order
# (fill_callchain_info leaves the level as it was): with Children
# (caller order) the nearest mapped frame toward the root, else the
# sample's.  Leaf first, each sample once:
#   A kernel: 0x0b | user 0x100 0x200      0x100, 0x200: [k] (the sample's)
#   B user:   0x0c 0x100 0x200              (rows made by A already)
#   C kernel: 0x0d | user LIB+0x100 0x300   0x300: [k] (the root: the sample's)
#   D kernel: 0x0e | user 0x400 LIB+0x200   0x400: [.] (LIB's, toward the root)
# With -g callee (the chain leaf first) 0x400 is [k] (the leaf's).
# mkchainlvl.py OUT deep: instead, one kernel sample whose user chain of
# 130 unmapped addresses (0x1000 on) reaches the kernel's stack limit (127):
# perfkit's "[truncated]" marker ends it, which must set no level: all [k].  First
# of all, another process, pid 7374 "lvl2", has a user sample through
# 0x100: its row is [.], lvl's [k] (a level a row, not one an address).
import os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdgen import Gen, padded  # noqa: E402

out = sys.argv[1]
PID, PERIOD, LIB = 7373, 1000000, 0x7F0000000000
CTX_KERNEL, CTX_USER = 0xFFFFFFFFFFFFFF80, 0xFFFFFFFFFFFFFE00
g = Gen(PID, "lvl")
# PERF_RECORD_MMAP, user: /nonexistent/liblvl.so at LIB
g.add(1, 2, struct.pack("<IIQQQ", PID, PID, LIB, 0x10000, 0) + padded("/nonexistent/liblvl.so") + g.sample_id())


def sample(kernel, leaf, callers, pid=PID):   # IP, TID, TIME, PERIOD, CALLCHAIN
    ips = [CTX_KERNEL if kernel else CTX_USER, leaf] + ([CTX_USER] if kernel else []) + callers
    g.add(9, 1 if kernel else 2, struct.pack("<QIIQQQ", leaf, pid, pid, g.tick(), PERIOD, len(ips))
          + b"".join(struct.pack("<Q", x) for x in ips))


if len(sys.argv) > 2 and sys.argv[2] == "deep":
    sample(True, 0x0B, [0x1000 + 16 * i for i in range(130)])
else:
    g.comm(PID + 1, "lvl2")
    sample(False, 0x0F, [0x100], PID + 1)
    sample(True, 0x0B, [0x100, 0x200])
    sample(False, 0x0C, [0x100, 0x200])
    sample(True, 0x0D, [LIB + 0x100, 0x300])
    sample(True, 0x0E, [0x400, LIB + 0x200])
# IP|TID|TIME|CALLCHAIN|PERIOD; sample_id_all
g.write(out, PERIOD, 0x1 | 0x2 | 0x4 | 0x20 | 0x100, 1 << 18)
