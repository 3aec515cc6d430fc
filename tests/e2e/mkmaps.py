#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mkmaps.py OUT — write a perf.data (perf.data-file-format.txt: one
# cpu-clock event, sample_type IP|TID|TIME|CALLCHAIN|PERIOD,
# sample_id_all) of one process, pid 5151 "maps", whose samples run in
# the kinds of mapping perf names each its own way (perf's map__new):
#   /opt/gone/app (deleted)  an executable file removed while mapped
#                            (MMAP2, prot r-x, pgoff 0x1000)
#   //anon, r-x              JIT code: named /tmp/perf-5151.map
#   //anon, rw-              anonymous data (as perf record -d records it)
#   [stack], rw-             the stack, pgoff as the kernel gives it
# Each of the 3 samples is a user call chain: leaf in the removed file,
# callers in the JIT code, the anonymous data and the stack.
import os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdgen import Gen, padded  # noqa: E402

out = sys.argv[1]
PID, PERIOD = 5151, 1000000
g = Gen(PID, "maps")


def mmap2(addr, length, pgoff, prot, path):   # PERF_RECORD_MMAP2, user
    g.add(10, 2, struct.pack("<IIQQQIIQQII", PID, PID, addr, length, pgoff, 8, 1, 77, 0, prot, 2)
          + padded(path) + g.sample_id())


def sample(chain):   # IP, TID, TIME, PERIOD, CALLCHAIN (PERF_CONTEXT_USER first)
    ips = [0xFFFFFFFFFFFFFE00] + chain
    g.add(9, 2, struct.pack("<QIIQQQ", chain[0], PID, PID, g.tick(), PERIOD, len(ips))
          + b"".join(struct.pack("<Q", ip) for ip in ips))


APP, JIT, DATA, STACK = 0x400000, 0x7F0000100000, 0x7F0000200000, 0x7FFD12340000
mmap2(APP, 0x1000, 0x1000, 5, "/opt/gone/app (deleted)")
mmap2(JIT, 0x1000, 0, 5, "//anon")
mmap2(DATA, 0x2000, 0, 3, "//anon")
mmap2(STACK, 0x21000, 0x7FFFFFFDE, 3, "[stack]")
for leaf in (0x400010, 0x400020, 0x400010):
    sample([leaf, JIT + 0x40, DATA + 0x1008, STACK + 0x20F00])
# IP|TID|TIME|CALLCHAIN|PERIOD; exclude_kernel, exclude_hv, sample_id_all
g.write(out, PERIOD, 0x1 | 0x2 | 0x4 | 0x20 | 0x100, (1 << 5) | (1 << 6) | (1 << 18))
