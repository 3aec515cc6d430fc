#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mkoverlap.py OUT N SEED [up|down] — write a perf.data (perf.data-file-format.txt:
# one cpu-clock event, sample_type IP|TID|TIME|CALLCHAIN|PERIOD,
# sample_id_all) of one process, pid 4242 "overlap", whose N MMAP2 records
# land at random over 400 pages, 1 to 40 pages long: each cuts, splits or
# replaces the maps under it (perf's maps__fixup_overlap_and_insert).  Two
# samples at random addresses follow each map; their DSO and offset say
# which map the session kept for that address.  Seeded: the same file for
# the same SEED.  With "up" or "down" (bench/many-maps.sh): N one-page maps
# a page apart, in address order or top down, and a sample every 1000.
import os, random, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdgen import Gen, padded  # noqa: E402

out, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
order = sys.argv[4] if len(sys.argv) > 4 else None
rnd = random.Random(seed)
PID, BASE, PAGE = 4242, 0x7F0000000000, 0x1000
g = Gen(PID, "overlap")
parts = [g.data]


def mmap2(addr, length, pgoff, path):   # PERF_RECORD_MMAP2, user, r-x
    parts.append(Gen.rec(10, 2, struct.pack("<IIQQQIIQQII", PID, PID, addr, length, pgoff, 8, 1, 77, 0, 5, 2)
                         + padded(path) + g.sample_id()))


def sample(ip):   # IP, TID, TIME, PERIOD, CALLCHAIN (PERF_CONTEXT_USER first)
    ips = [0xFFFFFFFFFFFFFE00, ip]
    parts.append(Gen.rec(9, 2, struct.pack("<QIIQQQ", ip, PID, PID, g.tick(), 1000, len(ips))
                         + b"".join(struct.pack("<Q", x) for x in ips)))


for k in range(n if order else 0):
    i = k if order == "up" else n - 1 - k
    mmap2(BASE + 2 * i * PAGE, PAGE, 0, "//anon")
    if k % 1000 == 0:
        sample(BASE + 2 * i * PAGE + 0x10)
for _ in range(0 if order else n):
    addr = BASE + rnd.randrange(400) * PAGE
    pages = rnd.choice([1, 1, 2, 3, 8, 40])
    path = "/lib/f%d.so" % rnd.randrange(5) if rnd.random() < 0.5 else "//anon"
    mmap2(addr, pages * PAGE, rnd.randrange(50) * PAGE, path)
    for _ in range(2):
        sample(BASE + rnd.randrange(420 * PAGE))
g.data = b"".join(parts)
# IP|TID|TIME|CALLCHAIN|PERIOD; exclude_kernel, exclude_hv, sample_id_all
g.write(out, 1000, 0x1 | 0x2 | 0x4 | 0x20 | 0x100, (1 << 5) | (1 << 6) | (1 << 18))
