# SPDX-License-Identifier: GPL-2.0-or-later
# capstone.mk — instruction decoding for `perfkit annotate` through capstone
# (Debian: libcapstone-dev), wrapped by src/lib/disasm/disasm.c.  Detected
# with pkg-config: without it the build still succeeds, PERFKIT_HAVE_CAPSTONE
# is not defined and disasm_open() returns -EOPNOTSUPP (annotate then shows
# addresses only and says why).
CAPSTONE_OK := $(shell pkg-config --exists capstone 2>/dev/null && echo 1)
ifeq ($(CAPSTONE_OK),1)
ALL_CFLAGS += -DPERFKIT_HAVE_CAPSTONE $(shell pkg-config --cflags capstone)
LIBS       += $(shell pkg-config --libs capstone)
endif
