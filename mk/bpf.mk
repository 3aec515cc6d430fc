# SPDX-License-Identifier: GPL-2.0-or-later
# bpf.mk — the eBPF tools (execsnoop, opensnoop, biolatency, biosnoop, runqlat,
# offcputime, funclatency, tcpconnect/tcpaccept,
# profile, tcplife): kernel halves in src/bpf/<tool>.bpf.c, compiled CO-RE with
# clang -target bpf against a vmlinux.h dumped from this kernel's BTF, turned
# into skeletons (<tool>.skel.h) that src/cmd/<tool>.c includes.
#
# The BPF objects are always built with clang (BPF_CLANG), whatever CC is and
# with or without SAN=1: sanitizer flags never reach them.
# DWARF is stripped from the objects (llvm-strip -g); their BTF stays.
# Needs: clang, bpftool, libbpf-dev (scripts/install-deps) and
# /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF=y), or VMLINUX_BTF=FILE;
# without them the tools are built as stubs that say what is missing.

BPF_CLANG   ?= clang
BPF_STRIP   ?= $(shell command -v llvm-strip 2>/dev/null || command -v llvm-strip-14 2>/dev/null || echo true)
BPFTOOL     ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
BPF_ARCH    := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' -e 's/s390x/s390/')
BPF_OUT     := $(BUILD)/bpf
BPF_SRC     := $(sort $(wildcard src/bpf/*.bpf.c))
BPF_TOOLS   := $(BPF_SRC:src/bpf/%.bpf.c=%)
BPF_OBJ     := $(BPF_TOOLS:%=$(BPF_OUT)/%.bpf.o)
BPF_SKEL    := $(BPF_TOOLS:%=$(BPF_OUT)/%.skel.h)
BPF_CFLAGS  := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I$(BPF_OUT) -Isrc/bpf \
	-Wall -Wno-unused-function -Wno-compare-distinct-pointer-types

# Without BTF, bpftool, libbpf or clang the rest of perfkit still builds:
# the tools then only say why they are missing (PERFKIT_NO_BPF).
BPF_MISSING := $(strip \
	$(if $(wildcard $(VMLINUX_BTF)),,$(VMLINUX_BTF) missing (kernel without CONFIG_DEBUG_INFO_BTF);) \
	$(if $(shell test -x $(BPFTOOL) && echo y),,bpftool not installed;) \
	$(if $(shell pkg-config --exists libbpf 2>/dev/null && echo y),,libbpf-dev not installed;) \
	$(if $(shell command -v $(BPF_CLANG) 2>/dev/null),,clang not installed;))

ifeq ($(BPF_MISSING),)
ALL_CFLAGS += -I$(BPF_OUT)
LIBS       += $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf)
else
BPF_MISSING := $(shell echo '$(BPF_MISSING)' | sed 's/;$$//')
$(info bpf.mk: eBPF tools disabled: $(BPF_MISSING); run scripts/install-deps)
ALL_CFLAGS += '-DPERFKIT_NO_BPF="$(BPF_MISSING)"'
BPF_TOOLS  :=
endif

$(BPF_OUT)/vmlinux.h:
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

$(BPF_OUT)/%.bpf.o: src/bpf/%.bpf.c $(wildcard src/bpf/*.h) $(BPF_OUT)/vmlinux.h
	@mkdir -p $(@D)
	$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(BPF_STRIP) -g $@.tmp && mv $@.tmp $@

$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

# Each tool's user half includes its skeleton.
$(foreach t,$(BPF_TOOLS),$(eval $(BUILD)/src/cmd/$(t).o: $(BPF_OUT)/$(t).skel.h))

.PRECIOUS: $(BPF_OBJ) $(BPF_SKEL) $(BPF_OUT)/vmlinux.h
