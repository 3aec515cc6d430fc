# SPDX-License-Identifier: GPL-2.0-or-later
# calibrate.mk — pkcalib, the kernels `perfkit calibrate` times natively and
# simulates (src/calibrate/kernels.c).  Built beside perfkit as
# $(BUILD)/calibrate/pkcalib, where the command looks for it.  Always without
# sanitizers (it runs under Valgrind), and -fno-tree-vectorize so the loops
# stay the scalar loops they are written as (matmul naive above all).
CALIB_BIN := $(BUILD)/calibrate/pkcalib

all: $(CALIB_BIN)

$(CALIB_BIN): src/calibrate/kernels.c src/vgtool/perfkit_cache.h
	@mkdir -p $(@D)
	$(CC) -std=c17 -O2 -g -fno-tree-vectorize -fno-omit-frame-pointer -fno-sanitize=all \
	  -Wall -Wextra -D_GNU_SOURCE $(if $(filter 1,$(WERROR)),-Werror) -o $@ $<
