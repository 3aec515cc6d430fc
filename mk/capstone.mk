# SPDX-License-Identifier: GPL-2.0-or-later
# capstone.mk — instruction decoding for `perfkit annotate` through capstone
# (Debian: libcapstone-dev), wrapped by src/lib/disasm/disasm.c.  Detected
# with pkg-config: without it the build still succeeds, PERFKIT_HAVE_CAPSTONE
# is not defined and disasm_open() returns -EOPNOTSUPP (annotate then shows
# addresses only and says why).  The library is not linked: disasm.c
# loads it (dlopen) when the first decoder is opened, so that the other
# commands do not pay its start-up (about 8 ms of CPU per process).
CAPSTONE_OK := $(shell pkg-config --exists capstone 2>/dev/null && echo 1)
ifeq ($(CAPSTONE_OK),1)
ALL_CFLAGS += -DPERFKIT_HAVE_CAPSTONE $(shell pkg-config --cflags capstone)
LIBS       += -ldl
endif
