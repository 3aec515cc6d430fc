# SPDX-License-Identifier: GPL-2.0-or-later
# top.mk — ncurses (wide-character build) for perfkit top's full-screen view
# (src/cmd/top.c).  Debian package: libncurses-dev.  Without it perfkit top
# still works with --stdio.

ifneq ($(shell pkg-config --exists ncursesw 2>/dev/null && echo y),)
ALL_CFLAGS += $(filter-out -D_XOPEN_SOURCE=%,$(shell pkg-config --cflags ncursesw))
LIBS       += $(shell pkg-config --libs ncursesw)
else
$(info top.mk: perfkit top's full-screen view disabled: ncursesw missing; run scripts/install-deps)
ALL_CFLAGS += '-DPERFKIT_NO_NCURSES="libncurses-dev not installed"'
endif
