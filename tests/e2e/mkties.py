#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mkties.py OUT ELF ELF_VADDR[,CALLER_VADDR...]:COUNT... -- MISSING_PATH OFFSET[,CALLER_VADDR...]:COUNT...
# Write a perf.data (perf.data-file-format.txt: one cpu-clock event at a
# fixed period, sample_type IP|TID|TIME|PERIOD, sample_id_all) of one
# process, pid 4242 "ties": ELF's executable segment mapped at
# 0x555555554000 + its p_vaddr, MISSING_PATH (a file that does not exist:
# no symbols) at 0x7f0000000000, and COUNT samples of period 1000000 at
# each ELF address (a virtual address of the file) and at each offset of
# the missing file, in the order given.  Rows of one sample each tie: the
# order of equal rows is then the sort keys' alone.  An ELF point with
# callers (leaf first) gives the file's samples call chains
# (PERF_SAMPLE_CALLCHAIN, user context): rows of equal Children; so does
# a missing file's offset with callers (ELF addresses).
import os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdgen import Gen, padded  # noqa: E402

out, elf = sys.argv[1], sys.argv[2]
sep = sys.argv.index("--")
elf_pts = [a.split(":") for a in sys.argv[3:sep]]
missing = sys.argv[sep + 1]
miss_pts = [a.split(":") for a in sys.argv[sep + 2:]]
PID, PERIOD, BASE, MBASE = 4242, 1000000, 0x555555554000, 0x7F0000000000

with open(elf, "rb") as f:
    img = f.read()
phoff, = struct.unpack_from("<Q", img, 32)
phentsize, phnum = struct.unpack_from("<HH", img, 54)
seg = None
for i in range(phnum):
    p_type, p_flags, p_off, p_vaddr, _, _, p_memsz, _ = struct.unpack_from("<IIQQQQQQ", img, phoff + i * phentsize)
    if p_type == 1 and p_flags & 1:   # PT_LOAD, PF_X
        seg = (p_off, p_vaddr, p_memsz)
        break
if seg is None:
    sys.exit("mkties.py: %s: no executable PT_LOAD segment" % elf)
p_off, p_vaddr, p_memsz = seg

g = Gen(PID, "ties")


def mmap(addr, length, pgoff, path):   # PERF_RECORD_MMAP, user
    g.add(1, 2, struct.pack("<IIQQQ", PID, PID, addr, length, pgoff) + padded(path) + g.sample_id())


chains = any("," in a for a, _ in elf_pts + miss_pts)


def sample(ip, callers=()):   # PERF_RECORD_SAMPLE, user: IP, TID, TIME, PERIOD[, CALLCHAIN]
    body = struct.pack("<QIIQQ", ip, PID, PID, g.tick(), PERIOD)
    if chains:
        ips = [0xFFFFFFFFFFFFFE00, ip] + list(callers)   # PERF_CONTEXT_USER, leaf first
        body += struct.pack("<Q", len(ips)) + b"".join(struct.pack("<Q", x) for x in ips)
    g.add(9, 2, body)


start = BASE + (p_vaddr & ~0xFFF)
mmap(start, (p_vaddr - (p_vaddr & ~0xFFF) + p_memsz + 0xFFF) & ~0xFFF, p_off & ~0xFFF, elf)
mmap(MBASE, 0x10000, 0, missing)
for a, n in elf_pts:
    pcs = [BASE + int(x, 16) for x in a.split(",")]
    for _ in range(int(n)):
        sample(pcs[0], pcs[1:])
for o, n in miss_pts:
    offs = o.split(",")
    for _ in range(int(n)):
        sample(MBASE + int(offs[0], 16), [BASE + int(x, 16) for x in offs[1:]])
# IP|TID|TIME|PERIOD[|CALLCHAIN]; exclude_kernel, sample_id_all
g.write(out, PERIOD, 0x1 | 0x2 | 0x4 | 0x100 | (0x20 if chains else 0), (1 << 5) | (1 << 18))
