#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mkbig.py IN OUT N — a perf.data with N samples for the memory benchmark:
# IN's header, attrs and side-band records, then IN's samples repeated until
# there are N, a FINISHED_ROUND after every 4096 (as perf record writes
# rounds); no feature sections (perf and perfkit both read such a file).
import struct, sys

src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = open(src, "rb").read()
attrs_off, attrs_size, data_off, data_size = struct.unpack_from("<QQQQ", b, 24)
attr_size = struct.unpack_from("<Q", b, 16)[0]
data = b[data_off:data_off + data_size]
side, samples = bytearray(), []
pos = 0
while pos + 8 <= len(data):
    typ, misc, size = struct.unpack_from("<IHH", data, pos)
    if size < 8:
        break
    rec = data[pos:pos + size]
    if typ == 9:
        samples.append(rec)
    elif typ != 68:
        side += rec
    pos += size
# the ids sections move with the attrs: copy attrs and ids verbatim, fix offsets
attrs = bytearray(b[attrs_off:attrs_off + attrs_size])
ids = bytearray()
out_ids_off = 104
for i in range(0, attrs_size, attr_size):
    ioff, isz = struct.unpack_from("<QQ", attrs, i + attr_size - 16)
    struct.pack_into("<QQ", attrs, i + attr_size - 16, out_ids_off + len(ids), isz)
    ids += b[ioff:ioff + isz]
new_attrs_off = out_ids_off + len(ids)
new_data_off = new_attrs_off + len(attrs)
rnd = struct.pack("<IHH", 68, 0, 8)
with open(dst, "wb") as f:
    f.write(b"\0" * 104 + ids + attrs + side + rnd)
    total = len(side) + 8
    k = 0
    while k < n:
        chunk = bytearray()
        for j in range(min(4096, n - k)):
            chunk += samples[(k + j) % len(samples)]
        chunk += rnd
        f.write(chunk)
        total += len(chunk)
        k += 4096
    hdr = struct.pack("<8sQQQQQQQQ4Q", b"PERFILE2", 104, attr_size, new_attrs_off, len(attrs),
                      new_data_off, total, 0, 0, 0, 0, 0, 0)
    f.seek(0)
    f.write(hdr)
