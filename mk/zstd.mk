# SPDX-License-Identifier: GPL-2.0-or-later
# zstd.mk — libzstd for perf record -z files (PERF_RECORD_COMPRESSED),
# decoded by src/lib/perfdata/reader.c.  Debian package: libzstd-dev.

ALL_CFLAGS += $(shell pkg-config --cflags libzstd 2>/dev/null)
LIBS       += $(shell pkg-config --libs libzstd 2>/dev/null || echo -lzstd)
