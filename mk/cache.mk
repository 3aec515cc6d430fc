# SPDX-License-Identifier: GPL-2.0-or-later
# cache.mk — the pkcache Valgrind tool behind `perfkit cache`.
#
# The tool is freestanding C (Valgrind's VG_() functions, no libc), linked
# statically against the installed Valgrind's libcoregrind and libvex at
# Valgrind's tool load address.  It is always built WITHOUT sanitizers and
# without the project's CFLAGS (SAN=1 only affects perfkit itself).
#
# Output: $(BUILD)/vgtool/pkcache-amd64-linux and $(BUILD)/vgtool/lib/, a
# private VALGRIND_LIB: symlinks to every file of the installed Valgrind
# core directory (VG_LIBEXEC) plus our tool.  perfkit finds it as
# <directory of /proc/self/exe>/vgtool/lib.  Nothing is written outside
# $(BUILD).  Skipped (with a note) when Valgrind's dev files are missing.

VG_PC_CFLAGS := $(shell pkg-config --cflags valgrind 2>/dev/null)
VG_LOAD      := $(shell pkg-config --variable=valt_load_address valgrind 2>/dev/null)
VG_PLATFORM  := $(shell pkg-config --variable=platform valgrind 2>/dev/null)
VG_LIBDIR    := $(shell pkg-config --variable=libdir valgrind 2>/dev/null)/valgrind
VG_LIBEXEC   ?= $(firstword $(foreach d,/usr/libexec/valgrind /usr/lib/$(shell gcc -dumpmachine 2>/dev/null)/valgrind /usr/lib/valgrind,$(if $(wildcard $(d)/memcheck-$(VG_PLATFORM)),$(d))))
VG_ARCH      := $(firstword $(subst -, ,$(VG_PLATFORM)))
VG_ARCH_DEF  := $(if $(filter amd64,$(VG_ARCH)),-DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1)

VGTOOL       := $(BUILD)/vgtool/pkcache-$(VG_PLATFORM)
VGTOOL_SRC   := $(sort $(wildcard src/vgtool/*.c))
VGTOOL_OBJ   := $(VGTOOL_SRC:src/vgtool/%.c=$(BUILD)/vgtool/%.o)
VGTOOL_CFLAGS := -std=gnu17 -O2 -g -Wall -Wextra -Wno-unused-parameter -Wshadow \
	-fno-strict-aliasing -fno-builtin -fno-stack-protector -fno-pie -ffreestanding \
	-fno-omit-frame-pointer -fno-sanitize=all -MMD -MP \
	$(VG_ARCH_DEF) $(VG_PC_CFLAGS) -Isrc/lib -Isrc/vgtool
ifeq ($(WERROR),1)
VGTOOL_CFLAGS += -Werror
endif
VGTOOL_LDFLAGS := -static -nodefaultlibs -nostartfiles -u _start -Wl,--build-id=none \
	-Wl,-Ttext-segment=$(VG_LOAD) -fno-sanitize=all

ifneq ($(and $(VG_LOAD),$(VG_ARCH_DEF),$(VG_LIBEXEC),$(wildcard $(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a)),)

all: $(BUILD)/vgtool/lib/.stamp $(BUILD)/vgtool/pkmemwrap-$(VG_PLATFORM).so

# The allocation hooks `perfkit c2c|mem record` preload into the program
# (src/vgtool/preload/pkmemwrap.c): an ordinary shared library.
$(BUILD)/vgtool/pkmemwrap-$(VG_PLATFORM).so: src/vgtool/preload/pkmemwrap.c src/vgtool/perfkit_cache.h
	@mkdir -p $(@D)
	$(CC) -std=gnu17 -O2 -g -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -fPIC -shared \
	  -fno-sanitize=all -fno-builtin -o $@ $<

$(BUILD)/vgtool/%.o: src/vgtool/%.c src/lib/cachesim/cachesim.h
	@mkdir -p $(@D)
	$(CC) $(VGTOOL_CFLAGS) -c -o $@ $<

$(VGTOOL): $(VGTOOL_OBJ)
	$(CC) $(VGTOOL_LDFLAGS) -o $@ $^ \
	  $(VG_LIBDIR)/libcoregrind-$(VG_PLATFORM).a $(VG_LIBDIR)/libvex-$(VG_PLATFORM).a -lgcc

# The private VALGRIND_LIB: links to the installed core files, then our tool.
$(BUILD)/vgtool/lib/.stamp: $(VGTOOL)
	@rm -rf $(BUILD)/vgtool/lib && mkdir -p $(BUILD)/vgtool/lib
	@for f in $(VG_LIBEXEC)/*; do ln -s "$$f" $(BUILD)/vgtool/lib/; done
	@ln -s ../$(notdir $(VGTOOL)) $(BUILD)/vgtool/lib/$(notdir $(VGTOOL))
	@touch $@

else
all: vgtool-missing
.PHONY: vgtool-missing
vgtool-missing:
	@echo "note: Valgrind headers/libraries not found (Debian package valgrind); perfkit cache is not built" >&2
endif
