/* SPDX-License-Identifier: GPL-2.0-or-later */
/* disasm.c — the capstone wrapper described in disasm.h. */
#include "disasm/disasm.h"

#include "base/error.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int disasm_arch_of_elf(unsigned e_machine, enum dis_arch *out)
{
	switch (e_machine) {
	case EM_X86_64:
		*out = DIS_X86_64;
		return 0;
	case EM_AARCH64:
		*out = DIS_AARCH64;
		return 0;
	default:
		return pk_error(EOPNOTSUPP, "machine type %u: only x86-64 and aarch64 are disassembled",
				e_machine);
	}
}

#ifdef PERFKIT_HAVE_CAPSTONE
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <pthread.h>

/* capstone is loaded (dlopen) when the first decoder is opened, not when
 * perfkit starts: its 77 k relative relocations and the pages they touch
 * cost every process about 8 ms of CPU and 370 page faults at start-up
 * (docs/PERFORMANCE.md), and most commands never decode an instruction.
 * The library loaded is the one of the headers built against
 * (libcapstone.so.CS_API_MAJOR: the structures are that version's). */
#define CS_STR_(x) #x
#define CS_STR(x) CS_STR_(x)
#define CS_SONAME "libcapstone.so." CS_STR(CS_API_MAJOR)

static struct {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*close)(csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	const char *(*strerror)(cs_err);
	cs_insn *(*malloc)(csh);
	void (*free)(cs_insn *, size_t);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	bool (*insn_group)(csh, const cs_insn *, unsigned int);
	char why[256];   /* when not loaded: dlerror()'s words */
} cs;
static pthread_once_t cs_once = PTHREAD_ONCE_INIT;

static void cs_load(void)
{
	void *h = dlopen(CS_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!h) {
		e = dlerror();
		snprintf(cs.why, sizeof(cs.why), "%s", e ? e : CS_SONAME ": cannot be loaded");
		return;
	}
	*(void **)&cs.open = dlsym(h, "cs_open");
	*(void **)&cs.close = dlsym(h, "cs_close");
	*(void **)&cs.option = dlsym(h, "cs_option");
	*(void **)&cs.strerror = dlsym(h, "cs_strerror");
	*(void **)&cs.malloc = dlsym(h, "cs_malloc");
	*(void **)&cs.free = dlsym(h, "cs_free");
	*(void **)&cs.disasm_iter = dlsym(h, "cs_disasm_iter");
	*(void **)&cs.insn_group = dlsym(h, "cs_insn_group");
	if (!cs.open || !cs.close || !cs.option || !cs.strerror || !cs.malloc || !cs.free || !cs.disasm_iter ||
	    !cs.insn_group) {
		snprintf(cs.why, sizeof(cs.why), "%s: a function is missing", CS_SONAME);
		cs.open = NULL;
	}
}

struct disasm {
	csh h;
	cs_insn *insn;
	enum dis_arch arch;
};

int disasm_open(struct disasm **out, enum dis_arch arch)
{
	struct disasm *d;
	cs_err e;

	pthread_once(&cs_once, cs_load);
	if (!cs.open)
		return pk_error(EOPNOTSUPP, "capstone not loaded (%s): no disassembly", cs.why);
	d = calloc(1, sizeof(*d));
	if (!d)
		return pk_error(ENOMEM, "out of memory");
	d->arch = arch;
	if (arch == DIS_X86_64)
		e = cs.open(CS_ARCH_X86, CS_MODE_64, &d->h);
	else
		e = cs.open(CS_ARCH_ARM64, CS_MODE_LITTLE_ENDIAN, &d->h);
	if (e != CS_ERR_OK) {
		free(d);
		return pk_error(EOPNOTSUPP, "capstone: %s", cs.strerror(e));
	}
	cs.option(d->h, CS_OPT_DETAIL, CS_OPT_ON);
	if (arch == DIS_X86_64)
		cs.option(d->h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	d->insn = cs.malloc(d->h);
	if (!d->insn) {
		cs.close(&d->h);
		free(d);
		return pk_error(ENOMEM, "out of memory");
	}
	*out = d;
	return 0;
}

void disasm_close(struct disasm *d)
{
	if (!d)
		return;
	cs.free(d->insn, 1);
	cs.close(&d->h);
	free(d);
}

/* The length of the VEX (C4, C5) or EVEX (62) instruction at c[0..len),
 * after optional 67 and segment prefixes (64-bit mode: 62 is always
 * EVEX), or 0: prefix, opcode, ModRM, SIB, displacement (EVEX's
 * compressed disp8 is one byte), and an immediate byte in map 0F3A and
 * for map 0F's 70-73, C2, C4-C6 (Intel SDM vol. 2, 2.3, 2.7). */
static unsigned vex_len(const uint8_t *c, size_t len)
{
	size_t i = 0, map;

	while (i < len && i < 4 && (c[i] == 0x67 || c[i] == 0x2e || c[i] == 0x3e || c[i] == 0x26 ||
				    c[i] == 0x36 || c[i] == 0x64 || c[i] == 0x65))
		i++;
	if (i >= len)
		return 0;
	if (c[i] == 0x62) {
		if (i + 4 > len)
			return 0;
		map = c[i + 1] & 3;
		i += 4;
	} else if (c[i] == 0xc4) {
		if (i + 3 > len)
			return 0;
		map = c[i + 1] & 0x1f;
		i += 3;
	} else if (c[i] == 0xc5) {
		map = 1;
		i += 2;
	} else {
		return 0;
	}
	if (map < 1 || map > 3 || i + 2 > len)
		return 0;
	uint8_t op = c[i++], modrm = c[i++];
	unsigned mod = modrm >> 6, rm = modrm & 7;

	if (mod != 3 && rm == 4) {   /* SIB */
		if (i >= len)
			return 0;
		if (mod == 0 && (c[i] & 7) == 5)
			i += 4;
		i++;
	}
	if (mod == 1)
		i += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		i += 4;
	if (map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6))))
		i += 1;
	return i <= len && i <= 15 ? (unsigned)i : 0;
}

int disasm_one(struct disasm *d, const uint8_t *code, size_t len, uint64_t addr,
	       struct dis_insn *out)
{
	const uint8_t *p = code;
	size_t n = len;
	uint64_t a = addr;
	cs_insn *in = d->insn;
	unsigned vl;

	if (!len || !cs.disasm_iter(d->h, &p, &n, &a, in)) {
		if (!len || d->arch != DIS_X86_64 || !(vl = vex_len(code, len)))
			return pk_error(EINVAL, "no instruction decodes at %#llx", (unsigned long long)addr);
		/* measured, not decoded: the bytes, as objdump shows what it
		 * cannot decode */
		memset(out, 0, sizeof(*out));
		out->addr = addr;
		out->size = vl;
		out->undecoded = true;
		snprintf(out->mnemonic, sizeof(out->mnemonic), "(bad)");
		size_t at = (size_t)snprintf(out->ops, sizeof(out->ops), ".byte ");
		for (unsigned k = 0; k < vl && at < sizeof(out->ops); k++)
			at += (size_t)snprintf(out->ops + at, sizeof(out->ops) - at, "%s0x%02x", k ? "," : "", code[k]);
		return 0;
	}
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	out->size = in->size;
	snprintf(out->mnemonic, sizeof(out->mnemonic), "%s", in->mnemonic);
	snprintf(out->ops, sizeof(out->ops), "%s", in->op_str);
	if (cs.insn_group(d->h, in, CS_GRP_CALL))
		out->kind = DIS_CALL;
	else if (cs.insn_group(d->h, in, CS_GRP_RET))
		out->kind = DIS_RET;
	else if (cs.insn_group(d->h, in, CS_GRP_JUMP))
		out->kind = DIS_JUMP;
	if (!in->detail)
		return 0;
	if (d->arch == DIS_X86_64) {
		const cs_x86 *x = &in->detail->x86;

		if (out->kind != DIS_OTHER && out->kind != DIS_RET && x->op_count == 1 &&
		    x->operands[0].type == X86_OP_IMM) {
			out->has_target = true;
			out->target = (uint64_t)x->operands[0].imm;
		}
	} else {
		const cs_arm64 *x = &in->detail->arm64;
		const char *m = in->mnemonic;
		bool branch = m[0] == 'b' && (m[1] == 0 || m[1] == '.' || !strcmp(m, "bl"));

		if (!strcmp(m, "cbz") || !strcmp(m, "cbnz") || !strcmp(m, "tbz") || !strcmp(m, "tbnz"))
			branch = true;
		if (!strcmp(m, "bl") || !strcmp(m, "blr"))
			out->kind = DIS_CALL;   /* capstone 4 files them under jumps */
		else if (branch && out->kind == DIS_OTHER)
			out->kind = DIS_JUMP;
		if (branch && x->op_count >= 1 && x->operands[x->op_count - 1].type == ARM64_OP_IMM) {
			out->has_target = true;
			out->target = (uint64_t)x->operands[x->op_count - 1].imm;
		}
	}
	return 0;
}

#else /* !PERFKIT_HAVE_CAPSTONE */

int disasm_open(struct disasm **out, enum dis_arch arch)
{
	*out = NULL;
	return pk_error(EOPNOTSUPP, "built without capstone (libcapstone-dev): no disassembly");
}

void disasm_close(struct disasm *d)
{
}

int disasm_one(struct disasm *d, const uint8_t *code, size_t len, uint64_t addr,
	       struct dis_insn *out)
{
	return pk_error(EOPNOTSUPP, "built without capstone (libcapstone-dev): no disassembly");
}
#endif
