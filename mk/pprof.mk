# SPDX-License-Identifier: GPL-2.0-or-later
# pprof.mk — the pprof exporter (src/lib/export/pprof.c): protoc-c turns
# src/lib/export/profile.proto into $(BUILD)/gen/profile.pb-c.{c,h}, which is
# compiled into libperfkit.a and linked with libprotobuf-c.
# Debian packages: protobuf-c-compiler, libprotobuf-c-dev.  Without them
# perfkit builds and --export=pprof says what is missing.

PROTOC_C  ?= $(shell command -v protoc-c 2>/dev/null)
PPROF_GEN := $(BUILD)/gen

ifneq ($(and $(PROTOC_C),$(shell pkg-config --exists libprotobuf-c 2>/dev/null && echo y)),)
ALL_CFLAGS += -I$(PPROF_GEN) $(shell pkg-config --cflags libprotobuf-c)
LIBS       += $(shell pkg-config --libs libprotobuf-c)

$(PPROF_GEN)/profile.pb-c.c: src/lib/export/profile.proto
	@mkdir -p $(@D)
	$(PROTOC_C) --proto_path=src/lib/export --c_out=$(PPROF_GEN) $<

$(PPROF_GEN)/profile.pb-c.h: $(PPROF_GEN)/profile.pb-c.c

# generated code: the project's warnings, but not -Werror's verdict on it
$(PPROF_GEN)/profile.pb-c.o: $(PPROF_GEN)/profile.pb-c.c
	$(CC) $(ALL_CFLAGS) -Wno-error -c -o $@ $<

$(BUILD)/src/lib/export/pprof.o: $(PPROF_GEN)/profile.pb-c.h
$(BUILD)/libperfkit.a: $(PPROF_GEN)/profile.pb-c.o
else
$(info pprof.mk: pprof export disabled: protoc-c or libprotobuf-c missing; run scripts/install-deps)
ALL_CFLAGS += '-DPERFKIT_NO_PPROF="protobuf-c-compiler or libprotobuf-c-dev not installed"'
endif
