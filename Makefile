# SPDX-License-Identifier: GPL-2.0-or-later
# perfkit — build with `make`, test with `make check`, try it with `make demo`.
#
# Variables: BUILD (output folder, default build), CC (gcc or clang),
# SAN=1 (AddressSanitizer + UndefinedBehaviorSanitizer), WERROR=1.
# Every file is compiled with src/lib/base/banned.h first: strcpy, sprintf,
# strtok, localtime, atoi, … are a compile error (the list and what to use
# instead are in that header).

VERSION := 0.1.0
BUILD   ?= build
CC      ?= cc
OPT     ?= -O2
PKGS    := libdw libelf zlib

CFLAGS_BASE := -std=c17 -g $(OPT) -Wall -Wextra -Wshadow -Wno-unused-parameter \
	-D_GNU_SOURCE -DPERFKIT_VERSION='"$(VERSION)"' -Isrc -Isrc/lib -MMD -MP \
	-include base/banned.h
ifeq ($(WERROR),1)
CFLAGS_BASE += -Werror
endif
ifeq ($(SAN),1)
CFLAGS_BASE += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS_SAN := -fsanitize=address,undefined
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -ldw -lelf -lz)
ALL_CFLAGS := $(CFLAGS_BASE) $(PKG_CFLAGS) $(CFLAGS)
LIBS       := $(PKG_LIBS) -lm -lpthread

LIB_SRC  := $(sort $(wildcard src/lib/*/*.c))
CMD_SRC  := $(sort $(wildcard src/cmd/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CMD_OBJ  := $(CMD_SRC:%.c=$(BUILD)/%.o) $(BUILD)/src/perfkit.o
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
EX_SRC   := $(sort $(wildcard examples/*.c))
EX_BIN   := $(EX_SRC:examples/%.c=$(BUILD)/examples/%)
WL_SRC   := $(sort $(wildcard tests/workloads/*.c))
WL_BIN   := $(WL_SRC:tests/workloads/%.c=$(BUILD)/tests/workloads/%)
# Example and workload programs: optimised, with frame pointers and debug info.
PROG_CFLAGS := -std=c17 -O2 -g -fno-omit-frame-pointer -Wall -Wextra -D_GNU_SOURCE

.PHONY: all tests check check-build unit e2e demo deps deps-build clean bench
.DELETE_ON_ERROR:

all: $(BUILD)/perfkit $(EX_BIN)

tests: all $(UNIT_BIN) $(WL_BIN)

$(BUILD)/libperfkit.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/perfkit: $(CMD_OBJ) $(BUILD)/libperfkit.a
	$(CC) $(LDFLAGS_SAN) $(LDFLAGS) -o $@ $(CMD_OBJ) $(BUILD)/libperfkit.a $(LIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/libperfkit.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS_SAN) -o $@ $< $(BUILD)/libperfkit.a -lcmocka $(LIBS)

$(BUILD)/examples/%: examples/%.c
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -o $@ $< -lpthread

# -fno-plt: the workloads' calls into libc (clock_gettime in every loop) go
# through the GOT, not a PLT stub: perf 6.1 names a sample in a PIE's .plt
# "_init" (perfkit names the stub, NAME@plt), and one such sample in a run
# made the tests that compare with perf report fail about 1 run in 10
$(BUILD)/tests/workloads/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CC) $(PROG_CFLAGS) -O1 -fno-inline -fno-plt -o $@ $< -lpthread

deps:
	@scripts/install-deps

# Only the Debian packages the build and the demo need (no npm, no test tools).
deps-build:
	@scripts/install-deps --build

# Unit tests (cmocka) then end-to-end tests (TAP, run by prove).
unit: tests
	@fail=0; for t in $(UNIT_BIN); do $$t || fail=1; done; exit $$fail

e2e: tests
	PERFKIT=$(abspath $(BUILD)/perfkit) PK_BUILD=$(abspath $(BUILD)) \
	  prove -f --exec bash tests/e2e/*.t

# The whole suite: gcc and clang builds (warning-free), unit and e2e tests,
# then the tests again under AddressSanitizer/UBSan (skip with NO_SAN=1).
check: deps
	@BUILD=$(BUILD) NO_SAN=$(NO_SAN) scripts/check

demo: deps-build
	@$(MAKE) --no-print-directory all >/dev/null
	@scripts/demo $(BUILD)

bench: all
	bench/run $(BUILD)

clean:
	rm -rf $(BUILD)

# Build fragments of subsystems with their own tool chains (BPF skeletons,
# the Valgrind tool): mk/<name>.mk, included here.
-include $(sort $(wildcard mk/*.mk))

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
