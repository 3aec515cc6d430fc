# SPDX-License-Identifier: GPL-2.0-or-later
# pdgen.py — what the e2e tests' perf.data writers (mkties.py, mkmaps.py, …)
# share (perf.data-file-format.txt): one process's records with the
# sample_id_all trailer of sample_type IP|TID|TIME[|...] (pid, tid, time),
# its COMM record, and the file around one cpu-clock event.
import struct


class Gen:
    def __init__(self, pid, comm):
        self.pid, self.time = pid, 1000
        self.data = self.rec(3, 0, struct.pack("<II", pid, pid) + padded(comm) + self.sample_id())

    def tick(self):
        self.time += 1
        return self.time

    def sample_id(self):   # the trailer of a non-sample record: TID, TIME
        return struct.pack("<IIQ", self.pid, self.pid, self.tick())

    @staticmethod
    def rec(kind, misc, body):
        return struct.pack("<IHH", kind, misc, 8 + len(body)) + body

    def add(self, kind, misc, body):
        self.data += self.rec(kind, misc, body)

    def comm(self, pid, comm):   # PERF_RECORD_COMM of another process
        self.add(3, 0, struct.pack("<II", pid, pid) + padded(comm) + struct.pack("<IIQ", pid, pid, self.tick()))

    def user_sample(self, pid, chain, period):
        """A sample of sample_type IP|TID|TIME|PERIOD|CALLCHAIN: a user
        call chain, leaf first (PERF_CONTEXT_USER put before it)."""
        ips = [0xFFFFFFFFFFFFFE00] + chain
        self.add(9, 2, struct.pack("<QIIQQQ", chain[0], pid, pid, self.tick(), period, len(ips))
                 + b"".join(struct.pack("<Q", ip) for ip in ips))

    def write(self, out, period, sample_type, flags):
        """One software cpu-clock event (attr size 128) of a fixed period,
        flags at the attr's bit-field word (exclude_*, sample_id_all)."""
        attr = bytearray(128)
        struct.pack_into("<IIQQQ", attr, 0, 1, 128, 0, period, sample_type)
        struct.pack_into("<Q", attr, 40, flags)
        hdr = 104
        attrs = bytes(attr) + struct.pack("<QQ", hdr, 0)
        header = struct.pack("<8sQQQQQQQQ4Q", b"PERFILE2", hdr, 128 + 16, hdr, len(attrs),
                             hdr + len(attrs), len(self.data), 0, 0, 0, 0, 0, 0)
        with open(out, "wb") as f:
            f.write(header + attrs + self.data)


def padded(s):   # a NUL-terminated string padded to 8 bytes
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)
