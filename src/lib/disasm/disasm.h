/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * disasm.h — decode machine instructions, one at a time, through capstone
 * (http://www.capstone-engine.org, Debian's libcapstone-dev).  perfkit has
 * no decoder of its own and never parses objdump's text.
 *
 * Architectures: x86-64 (AT&T syntax, as objdump and perf annotate print
 * it) and AArch64.  A build without capstone (see mk/capstone.mk) keeps the
 * same interface: disasm_open() then returns -EOPNOTSUPP.  capstone is not
 * linked: the first disasm_open() loads libcapstone.so.N (N the major
 * version of the headers built against; dlopen(3), once, thread-safe),
 * so that commands that decode nothing do not pay its start-up; a
 * library that cannot be loaded is -EOPNOTSUPP naming dlerror()'s reason.
 *
 * Instruction kinds come from capstone's groups: DIS_JUMP for every jump
 * (conditional, direct, indirect), DIS_CALL, DIS_RET.  has_target is set
 * for a direct branch or call whose destination is an immediate address
 * (target, an address in the same space as the one given to disasm_one);
 * AArch64 branches (b, b.cond, cbz, tbz, bl) are recognised by their
 * immediate operand.
 *
 * x86-64 instructions capstone cannot decode (capstone 4 knows only part
 * of AVX-512: EVEX-encoded ones such as glibc's __strlen_evex's
 * vpcmpeqb) are measured, not decoded: a VEX or EVEX prefix, map, ModRM,
 * SIB, displacement and immediate give their length (Intel SDM vol. 2,
 * 2.3 and 2.7), so that the next instruction starts where it does; such an
 * instruction is "(bad)" with its bytes, undecoded set.
 *
 * Errors (negative errno, with a pk_error() message): -EOPNOTSUPP (no
 * capstone, or an architecture it was built without), -EINVAL (the bytes
 * at addr do not decode: disasm_one's message names the address),
 * -ENOMEM.
 */
#ifndef PERFKIT_DISASM_H
#define PERFKIT_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum dis_arch {
	DIS_X86_64,
	DIS_AARCH64,
};

enum dis_kind {
	DIS_OTHER = 0,
	DIS_JUMP,
	DIS_CALL,
	DIS_RET,
};

struct dis_insn {
	uint64_t addr;
	unsigned size;            /* bytes, >= 1 */
	enum dis_kind kind;
	bool has_target;
	uint64_t target;          /* when has_target */
	char mnemonic[32];        /* "jne", "movss", "b.ne" */
	char ops[160];            /* operands as capstone prints them */
	bool undecoded;           /* x86-64: a VEX/EVEX instruction capstone does
				     not know, measured: mnemonic "(bad)", ops
				     its bytes (".byte 0x62,0xf3,...") */
};

struct disasm;

int disasm_open(struct disasm **out, enum dis_arch arch);
void disasm_close(struct disasm *d);

/* Decode the instruction at code[0..len) (address addr) into *out.
 * Returns 0 or -EINVAL (not an instruction, or len too short). */
int disasm_one(struct disasm *d, const uint8_t *code, size_t len, uint64_t addr,
	       struct dis_insn *out);

/* The architecture of an ELF e_machine (EM_X86_64 62, EM_AARCH64 183):
 * 0, or -EOPNOTSUPP for any other. */
int disasm_arch_of_elf(unsigned e_machine, enum dis_arch *out);

#endif
