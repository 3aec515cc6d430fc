# SPDX-License-Identifier: GPL-2.0-or-later
# install.mk — `make install [PREFIX=/usr/local] [DESTDIR=]`: bin/perfkit and
# its helpers in libexec/perfkit/ (vgtool/, pkcalib), where the binary looks
# for them (scripts/install says what goes where and why).
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: install uninstall
install: all
	@scripts/install "$(BUILD)" "$(DESTDIR)" "$(PREFIX)"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/perfkit"
	rm -rf "$(DESTDIR)$(PREFIX)/libexec/perfkit"
