# SPDX-License-Identifier: GPL-2.0-or-later
# demangle.mk — C++ and Rust (legacy and v0) demangling through libiberty's
# cplus_demangle (Debian: libiberty-dev, a static libiberty.a).
LIBS += -liberty
