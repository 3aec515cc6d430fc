#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mkzbomb.py OUT N [ZSTD] — write a perf.data (perf record -z layout: one
# cpu-clock event, PERF_RECORD_COMPRESSED records holding one zstd stream,
# the HEADER_COMPRESSED feature) whose stream expands to N FINISHED_ROUND
# records (8 bytes each), with one sample before them.  Needs the zstd CLI.
import struct, subprocess, sys

out, n = sys.argv[1], int(sys.argv[2])
zstd = sys.argv[3] if len(sys.argv) > 3 else "zstd"

attr = bytearray(128)
struct.pack_into("<IIQQQ", attr, 0, 1, 128, 0, 999, 0x7 | 0x100)  # sw cpu-clock; IP|TID|TIME|... (IDENTIFIER no)
struct.pack_into("<Q", attr, 40, (1 << 10) | (1 << 18))            # freq, sample_id_all
# sample_type: IP | TID | TIME
struct.pack_into("<Q", attr, 24, 0x1 | 0x2 | 0x4)
sample = struct.pack("<IHHQIIQ", 9, 2, 32, 0x401000, 7, 7, 1)      # PERF_RECORD_SAMPLE, user
rnd = struct.pack("<IHH", 68, 0, 8)

p = subprocess.Popen([zstd, "-q", "-1", "-c"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
import threading
chunks = []
t = threading.Thread(target=lambda: chunks.append(p.stdout.read()))
t.start()
p.stdin.write(sample)
block = rnd * 65536
left = n
while left:
    k = min(left, 65536)
    p.stdin.write(block if k == 65536 else rnd * k)
    left -= k
p.stdin.close()
t.join()
p.wait()
z = chunks[0]

data = bytearray()
for i in range(0, len(z), 65000):
    part = z[i:i + 65000]
    data += struct.pack("<IHH", 81, 0, 8 + len(part)) + part   # PERF_RECORD_COMPRESSED
while len(data) % 8:
    data += b"\0"   # (the last record's size stays as written)

hdr = 104
ids_off = hdr
attrs_off = ids_off
attrs = bytes(attr) + struct.pack("<QQ", ids_off, 0)
data_off = attrs_off + len(attrs)
feat_off = data_off + len(data)
body = struct.pack("<IIIIQ", 0, 1, 1, 1, 0)       # version, type zstd, level, ratio, mmap_len
features = [0, 0, 0, 0]
features[0] |= 1 << 27                            # HEADER_COMPRESSED
header = struct.pack("<8sQQQQQQQQ4Q", b"PERFILE2", 104, 128 + 16, attrs_off, len(attrs),
                     data_off, len(data), 0, 0, *features)
with open(out, "wb") as f:
    f.write(header + attrs + data + struct.pack("<QQ", feat_off + 16, len(body)) + body)
