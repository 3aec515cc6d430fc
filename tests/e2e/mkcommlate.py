# SPDX-License-Identifier: GPL-2.0-or-later
# mkcommlate.py OUT — a perf.data (pdgen.py) whose thread 200 is sampled
# before any FORK or COMM names it (":200" then), then named "late" by its
# first COMM, then "later" by a second; thread 100 is "main" throughout.
# perf's report names the samples before the first COMM "late" too
# (thread__set_comm overrides the ":TID" comm in place); perf script
# prints ":200" for them.
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from pdgen import Gen  # noqa: E402

g = Gen(100, "main")
g.user_sample(100, [0x401000], 1000)
g.user_sample(200, [0x401000], 1000)
g.user_sample(200, [0x402000, 0x401000], 1000)
g.comm(200, "late")
g.user_sample(200, [0x401000], 1000)
g.comm(200, "later")
g.user_sample(200, [0x401000], 1000)
g.write(sys.argv[1], 1000, 0x1 | 0x2 | 0x4 | 0x100 | 0x20, 1 << 18)
