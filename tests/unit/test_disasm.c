/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/lib/disasm: capstone's decoding of known bytes —
 * x86-64 (AT&T syntax, jump/call/ret kinds, branch targets, bytes that do
 * not decode) and aarch64 (b.ne, bl, ret, cbz). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "base/error.h"
#include "disasm/disasm.h"

static struct disasm *open_or_skip(enum dis_arch a)
{
	struct disasm *d = NULL;

	if (disasm_open(&d, a) == -EOPNOTSUPP)
		return NULL;
	return d;
}

static void test_x86(void **state)
{
	struct disasm *d = open_or_skip(DIS_X86_64);
	struct dis_insn in;

	(void)state;
	if (!d)
		skip();
	/* 1469: addps %xmm0,%xmm1 */
	static const uint8_t addps[] = { 0x0f, 0x58, 0xc8 };
	assert_int_equal(disasm_one(d, addps, sizeof(addps), 0x1469, &in), 0);
	assert_int_equal(in.size, 3);
	assert_string_equal(in.mnemonic, "addps");
	assert_string_equal(in.ops, "%xmm0, %xmm1");
	assert_int_equal(in.kind, DIS_OTHER);
	/* 146f: jne 1450 (75 df) */
	static const uint8_t jne[] = { 0x75, 0xdf };
	assert_int_equal(disasm_one(d, jne, sizeof(jne), 0x146f, &in), 0);
	assert_string_equal(in.mnemonic, "jne");
	assert_int_equal(in.kind, DIS_JUMP);
	assert_true(in.has_target);
	assert_int_equal(in.target, 0x1450);
	/* 1000: call 1100 (e8 fb 00 00 00) */
	static const uint8_t call[] = { 0xe8, 0xfb, 0x00, 0x00, 0x00 };
	assert_int_equal(disasm_one(d, call, sizeof(call), 0x1000, &in), 0);
	assert_int_equal(in.kind, DIS_CALL);
	assert_int_equal(in.size, 5);
	assert_true(in.has_target);
	assert_int_equal(in.target, 0x1100);
	/* call *%rax: a call without a known target */
	static const uint8_t icall[] = { 0xff, 0xd0 };
	assert_int_equal(disasm_one(d, icall, sizeof(icall), 0x2000, &in), 0);
	assert_int_equal(in.kind, DIS_CALL);
	assert_false(in.has_target);
	static const uint8_t ret[] = { 0xc3 };
	assert_int_equal(disasm_one(d, ret, 1, 0x3000, &in), 0);
	assert_int_equal(in.kind, DIS_RET);
	/* cut short: the first bytes of a 5-byte call */
	pk_error_clear();
	assert_int_equal(disasm_one(d, call, 3, 0x1000, &in), -EINVAL);
	assert_non_null(strstr(pk_errmsg(), "0x1000"));
	assert_int_equal(disasm_one(d, call, 0, 0x1000, &in), -EINVAL);
	disasm_close(d);
}

/* AVX-512 (EVEX) and mask (VEX) instructions capstone 4 does not know,
 * from glibc's __strlen_evex: measured, so that the next one starts where
 * objdump starts it; decoded where the capstone at hand knows them */
static void test_x86_evex(void **state)
{
	(void)state;
	struct disasm *d = open_or_skip(DIS_X86_64);
	/* vpcmpeqb (%rdi),%ymm16,%k0; kmovd %k0,%eax; test %eax,%eax;
	 * vpcmpeqb 0x20(%rdi),%ymm16,%k0 (disp8); vpxorq %xmm16,%xmm16,%xmm16 */
	static const uint8_t code[] = { 0x62, 0xf3, 0x7d, 0x20, 0x3f, 0x07, 0x00, 0xc5, 0xfb, 0x93, 0xc0, 0x85, 0xc0,
					0x62, 0xf3, 0x7d, 0x20, 0x3f, 0x47, 0x01, 0x00, 0x62, 0xa1, 0xfd, 0x00, 0xef, 0xc0 };
	static const unsigned sizes[] = { 7, 4, 2, 8, 6 };
	struct dis_insn in;
	size_t off = 0;

	if (!d)
		return;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		assert_int_equal(disasm_one(d, code + off, sizeof(code) - off, 0x1000 + off, &in), 0);
		assert_int_equal(in.size, sizes[k]);
		if (in.undecoded) {
			assert_string_equal(in.mnemonic, "(bad)");
			assert_int_equal(strncmp(in.ops, ".byte 0x", 8), 0);
		}
		off += in.size;
	}
	assert_int_equal(off, sizeof(code));
	/* cut short: no length, an error */
	assert_true(disasm_one(d, code, 3, 0x1000, &in) < 0);
	pk_error_clear();
	disasm_close(d);
}

static void test_aarch64(void **state)
{
	struct disasm *d = open_or_skip(DIS_AARCH64);
	struct dis_insn in;

	(void)state;
	if (!d)
		skip();
	/* 0x400: b.ne 0x3f0  (imm19 = -4: 0x54ffff81) */
	static const uint8_t bne[] = { 0x81, 0xff, 0xff, 0x54 };
	assert_int_equal(disasm_one(d, bne, 4, 0x400, &in), 0);
	assert_string_equal(in.mnemonic, "b.ne");
	assert_int_equal(in.kind, DIS_JUMP);
	assert_true(in.has_target);
	assert_int_equal(in.target, 0x3f0);
	/* 0x400: bl 0x500 (0x94000040) */
	static const uint8_t bl[] = { 0x40, 0x00, 0x00, 0x94 };
	assert_int_equal(disasm_one(d, bl, 4, 0x400, &in), 0);
	assert_int_equal(in.kind, DIS_CALL);
	assert_int_equal(in.target, 0x500);
	/* ret (0xd65f03c0) */
	static const uint8_t ret[] = { 0xc0, 0x03, 0x5f, 0xd6 };
	assert_int_equal(disasm_one(d, ret, 4, 0x400, &in), 0);
	assert_int_equal(in.kind, DIS_RET);
	/* add x0, x1, x2 (0x8b020020) */
	static const uint8_t add[] = { 0x20, 0x00, 0x02, 0x8b };
	assert_int_equal(disasm_one(d, add, 4, 0x400, &in), 0);
	assert_string_equal(in.mnemonic, "add");
	assert_string_equal(in.ops, "x0, x1, x2");
	assert_int_equal(in.kind, DIS_OTHER);
	disasm_close(d);
}

static void test_arch_of_elf(void **state)
{
	enum dis_arch a;

	(void)state;
	assert_int_equal(disasm_arch_of_elf(62, &a), 0);
	assert_int_equal(a, DIS_X86_64);
	assert_int_equal(disasm_arch_of_elf(183, &a), 0);
	assert_int_equal(a, DIS_AARCH64);
	assert_int_equal(disasm_arch_of_elf(3, &a), -EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86),
		cmocka_unit_test(test_x86_evex),
		cmocka_unit_test(test_aarch64),
		cmocka_unit_test(test_arch_of_elf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
