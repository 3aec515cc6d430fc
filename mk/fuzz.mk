# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz.mk — libFuzzer harnesses for perfkit's parsers (tests/fuzz/<name>.c).
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_JOBS=1]
#       builds every harness with clang -fsanitize=fuzzer,address,undefined
#       against a copy of the library built with coverage instrumentation
#       ($(BUILD)/fuzz/), fills the seed corpora $(BUILD)/fuzz/corpus/<name>/
#       (scripts/fuzz-corpus: ../shared/conformance, the project's tests and
#       small recordings) and runs each harness FUZZ_SECONDS seconds.  Logs
#       go to $(BUILD)/fuzz/logs/<name>.log, findings to
#       $(BUILD)/fuzz/crashes/<name>/; a summary line per harness
#       (executions, coverage, seconds) is printed and the target fails when
#       any harness found something.  Copy a finding to
#       tests/fuzz-regressions/<name>/ once it is fixed.
#
#   make tests  also builds $(BUILD)/tests/fuzz/replay-<name>: the same
#       harness with a plain main() (tests/fuzz/replay.c) instead of
#       libFuzzer, built with the project's compiler and flags (so with
#       SAN=1 it runs under the sanitizers); tests/e2e/0990 replays
#       tests/fuzz-regressions/<name>/ with it.
#
# Needs clang and Debian's libclang-rt-14-dev (libclang_rt.fuzzer).

FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_NAMES   := $(filter-out replay,$(basename $(notdir $(wildcard tests/fuzz/*.c))))
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# deferred (=): other fragments add to ALL_CFLAGS and LIBS after this one
FUZZ_CFLAGS   = $(filter-out -fsanitize=% -fno-sanitize-recover=% -Werror,$(ALL_CFLAGS)) \
	-Itests/fuzz -fsanitize=fuzzer-no-link $(FUZZ_SAN)
# the parts of the library the harnesses use (not the BPF helpers or the
# exporters, which need generated files)
FUZZ_LIB_SRC := $(filter $(addprefix src/lib/,$(addsuffix /%,base perfdata session stack flame \
	cgfile cachesim symbol event tracefs bpfutil counter stats callgraph annotate disasm)),$(LIB_SRC))
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_BIN     := $(FUZZ_NAMES:%=$(FUZZ_DIR)/bin/%)
FUZZ_REPLAY  := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/replay-%)

.PHONY: fuzz fuzz-build
tests: $(FUZZ_REPLAY)

$(BUILD)/tests/fuzz/replay-%: $(BUILD)/tests/fuzz/%.o $(BUILD)/tests/fuzz/replay.o $(BUILD)/libperfkit.a
	$(CC) $(LDFLAGS_SAN) $(LDFLAGS) -o $@ $^ $(LIBS)

# the option harness calls six commands' entry points; what the library
# above lacks (the exporters, with their generated protobuf code) comes
# from $(BUILD)/libperfkit.a, uninstrumented
FUZZ_OPT_CMDS := $(addprefix src/cmd/,bench.c stat.c record.c report.c annotate.c flamegraph.c)
$(BUILD)/tests/fuzz/replay-options: $(BUILD)/tests/fuzz/options.o $(BUILD)/tests/fuzz/replay.o \
		$(FUZZ_OPT_CMDS:%.c=$(BUILD)/%.o) $(BUILD)/libperfkit.a
	$(CC) $(LDFLAGS_SAN) $(LDFLAGS) -o $@ $^ $(LIBS)

$(FUZZ_DIR)/bin/options: $(FUZZ_DIR)/obj/tests/fuzz/options.o $(FUZZ_OPT_CMDS:%.c=$(FUZZ_DIR)/obj/%.o) \
		$(FUZZ_DIR)/libperfkit-fuzz.a $(BUILD)/libperfkit.a
	@mkdir -p $(@D)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LIBS)

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FUZZ_DIR)/libperfkit-fuzz.a: $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_DIR)/bin/%: $(FUZZ_DIR)/obj/tests/fuzz/%.o $(FUZZ_DIR)/libperfkit-fuzz.a
	@mkdir -p $(@D)
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LIBS)

fuzz-build: $(FUZZ_BIN) $(BUILD)/perfkit $(WL_BIN)

fuzz: fuzz-build
	@scripts/fuzz-corpus $(BUILD) $(FUZZ_NAMES)
	@scripts/fuzz-run $(BUILD) $(FUZZ_SECONDS) $(FUZZ_NAMES)
