/*
 * plugins/patch-runtime/decode: what the patch runtime knows of an
 * instruction: its length, a relative branch's kind and target, a jcc's
 * condition, where a rip-relative displacement is; and what cannot move.
 * Encodings as GNU as writes them (objdump -d shows the same).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../plugins/patch-runtime/decode.h"
#include "unit.h"
#include "banned.h"

#define AT 0x400000ull

struct want {
	const char *what;
	uint8_t bytes[16];
	size_t n;       /* bytes given */
	size_t len;     /* mtp_decode()'s answer */
	int kind;
	int64_t target; /* relative to AT; branches only */
	int cc, disp_off;
};

static const struct want cases[] = {
	{ "mov %rdi,%rax", { 0x48, 0x89, 0xf8 }, 3, 3, MTP_I_PLAIN, 0, 0, 0 },
	{ "push %rbp", { 0x55 }, 1, 1, MTP_I_PLAIN, 0, 0, 0 },
	{ "ret", { 0xc3 }, 1, 1, MTP_I_PLAIN, 0, 0, 0 },
	{ "call rel32", { 0xe8, 0x10, 0x00, 0x00, 0x00 }, 5, 5, MTP_I_CALL, 0x15, 0, 0 },
	{ "jmp rel32 back", { 0xe9, 0xfb, 0xff, 0xff, 0xff }, 5, 5, MTP_I_JMP, 0, 0, 0 },
	{ "jmp rel8", { 0xeb, 0x0e }, 2, 2, MTP_I_JMP, 0x10, 0, 0 },
	{ "bnd jmp rel32", { 0xf2, 0xe9, 0x00, 0x01, 0x00, 0x00 }, 6, 6, MTP_I_JMP, 0x106, 0, 0 },
	{ "jz rel8", { 0x74, 0x11 }, 2, 2, MTP_I_JCC, 0x13, 0x4, 0 },
	{ "jg rel8 back", { 0x7f, 0xfb }, 2, 2, MTP_I_JCC, -3, 0xf, 0 },
	{ "jb rel32", { 0x0f, 0x82, 0x20, 0x00, 0x00, 0x00 }, 6, 6, MTP_I_JCC, 0x26, 0x2, 0 },
	{ "jne rel32", { 0x0f, 0x85, 0x00, 0x00, 0x00, 0x00 }, 6, 6, MTP_I_JCC, 6, 0x5, 0 },
	{ "loop", { 0xe2, 0xfe }, 2, 2, MTP_I_FIXED, 0, 0, 0 },
	{ "jrcxz", { 0xe3, 0x05 }, 2, 2, MTP_I_FIXED, 7, 0, 0 },
	{ "xbegin", { 0xc7, 0xf8, 0x00, 0x00, 0x00, 0x00 }, 6, 6, MTP_I_FIXED, 6, 0, 0 },
	{ "call *%rax", { 0xff, 0xd0 }, 2, 2, MTP_I_CALL_IND, 0, 0, 0 },
	{ "call *mcount@GOT(%rip)", { 0xff, 0x15, 0x00, 0x10, 0x00, 0x00 }, 6, 6,
	  MTP_I_CALL_IND, 0, 0, 2 },
	{ "call *0x130(%rdi)", { 0xff, 0x97, 0x30, 0x01, 0, 0 }, 6, 6, MTP_I_CALL_IND, 0, 0, 0 },
	{ "call *%r12", { 0x41, 0xff, 0xd4 }, 3, 3, MTP_I_CALL_IND, 0, 0, 0 },
	{ "call *(%r12)", { 0x41, 0xff, 0x14, 0x24 }, 4, 4, MTP_I_CALL_IND, 0, 0, 0 },
	/* what a copy that pushes first would read elsewhere, and far */
	{ "call *%rsp", { 0xff, 0xd4 }, 2, 2, MTP_I_FIXED, 0, 0, 0 },
	{ "call *8(%rsp)", { 0xff, 0x54, 0x24, 0x08 }, 4, 4, MTP_I_FIXED, 0, 0, 0 },
	{ "lcall *(%rax)", { 0xff, 0x18 }, 2, 2, MTP_I_FIXED, 0, 0, 0 },
	{ "int3", { 0xcc }, 1, 1, MTP_I_INT3, 0, 0, 0 },
	{ "nop", { 0x90 }, 1, 1, MTP_I_NOP, 0, 0, 0 },
	{ "xchg %ax,%ax", { 0x66, 0x90 }, 2, 2, MTP_I_NOP, 0, 0, 0 },
	{ "nopl 0(%rax)", { 0x0f, 0x1f, 0x40, 0x00 }, 4, 4, MTP_I_NOP, 0, 0, 0 },
	{ "data16 cs nopw 0(%rax,%rax)", { 0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 },
	  11, 11, MTP_I_NOP, 0, 0, 0 },
	{ "mov 0x10(%rip),%eax", { 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00 }, 6, 6,
	  MTP_I_PLAIN, 0, 0, 2 },
	{ "movl $7,0x10(%rip)", { 0xc7, 0x05, 0x10, 0, 0, 0, 7, 0, 0, 0 }, 10, 10,
	  MTP_I_PLAIN, 0, 0, 2 },
	{ "cmpb $1,0x10(%rip)", { 0x80, 0x3d, 0x10, 0, 0, 0, 1 }, 7, 7, MTP_I_PLAIN, 0, 0, 2 },
	/* capstone 4 said these displacements were 2 bytes long */
	{ "movdqa 0x10(%rip),%xmm0", { 0x66, 0x0f, 0x6f, 0x05, 0x10, 0, 0, 0 }, 8, 8,
	  MTP_I_PLAIN, 0, 0, 4 },
	{ "mov 0x10(%rip),%ax", { 0x66, 0x8b, 0x05, 0x10, 0, 0, 0 }, 7, 7, MTP_I_PLAIN, 0, 0, 3 },
	{ "vmovdqa 0x10(%rip),%ymm0", { 0xc5, 0xfd, 0x6f, 0x05, 0x10, 0, 0, 0 }, 8, 8,
	  MTP_I_PLAIN, 0, 0, 4 },
	/* eip-relative (0x67): its target is truncated, it cannot move */
	{ "mov 0x10(%eip),%eax", { 0x67, 0x8b, 0x05, 0x10, 0, 0, 0 }, 7, 7, MTP_I_FIXED, 0, 0, 0 },
	/* AVX-512 BW (capstone 4 could not decode it): kmovd %ecx,%k2 */
	{ "kmovd %ecx,%k2", { 0xc5, 0xfb, 0x92, 0xd1 }, 4, 4, MTP_I_PLAIN, 0, 0, 0 },
	{ "vpcmpub $0,(%rdi),%ymm16,%k0", { 0x62, 0xb3, 0x7d, 0x20, 0x3e, 0x07, 0x00 }, 7, 7,
	  MTP_I_PLAIN, 0, 0, 0 },
	{ "rdpkru", { 0x0f, 0x01, 0xee }, 3, 3, MTP_I_PLAIN, 0, 0, 0 },
	/* truncated, and not an instruction */
	{ "call rel32, 4 bytes of 5", { 0xe8, 0, 0, 0 }, 4, 0, 0, 0, 0, 0 },
	{ "ud2", { 0x0f, 0x0b }, 2, 2, MTP_I_PLAIN, 0, 0, 0 },
	{ "0x06 (push %es: not in 64-bit mode)", { 0x06 }, 1, 0, 0, 0, 0, 0 },
};

static void test_cases(void)
{
	size_t i;

	CHECK_EQ(mtp_decode_init(), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct want *w = &cases[i];
		struct mtp_insn in;
		size_t n = mtp_decode(w->bytes, w->n, AT, &in);

		unit_case = w->what;
		CHECK_EQ(n, w->len);
		if (!n)
			continue;
		CHECK_EQ(in.len, w->len);
		CHECK_EQ(in.addr, AT);
		CHECK_EQ(in.kind, w->kind);
		CHECK_EQ(in.disp_off, w->disp_off);
		if (w->kind == MTP_I_CALL || w->kind == MTP_I_JMP || w->kind == MTP_I_JCC ||
		    (w->kind == MTP_I_FIXED && w->target)) {
			CHECK(in.is_branch);
			CHECK_EQ(in.target, AT + (uint64_t)w->target);
		} else if (w->kind != MTP_I_FIXED) {
			CHECK(!in.is_branch);
		}
		if (w->kind == MTP_I_JCC)
			CHECK_EQ(in.cc, w->cc);
		if (w->kind == MTP_I_CALL_IND) /* its ModRM: 0xff's next byte */
			CHECK(in.modrm_off >= 1 && w->bytes[in.modrm_off - 1] == 0xff &&
			      ((w->bytes[in.modrm_off] >> 3) & 7) == 2);
	}
}

/* One byte string: mtp_decode_walk() and mtp_decode() agree on the
 * length, whether it is a relative branch, its target and whether it is
 * a conditional jump. */
static int same(const uint8_t *b, size_t n, uint64_t at)
{
	struct mtp_insn w, z;
	size_t nw = mtp_decode_walk(b, n, at, &w), nz = mtp_decode(b, n, at, &z);

	if (nw != nz || (nz && (w.len != z.len || w.is_branch != z.is_branch ||
				(z.is_branch && w.target != z.target) ||
				((w.kind == MTP_I_JCC) != (z.kind == MTP_I_JCC))))) {
		char hex[64];
		size_t i;

		for (i = 0; i < n && i < 15; i++)
			snprintf(hex + 3 * i, 4, "%02x ", b[i]);
		fprintf(stderr, "walk %zu (branch %d), Zydis %zu (branch %d): %s\n", nw,
			w.is_branch, nz, z.is_branch, hex);
		return 0;
	}
	return 1;
}

/* Random instructions, most of them starting with the prefixes and
 * opcodes the walk measures itself: it and Zydis agree on all. */
static void test_walk_random(void)
{
	static const uint8_t first[] = { 0x66, 0x67, 0xf2, 0xf3, 0x2e, 0x3e, 0x64, 0x48,
					 0x41, 0x4c, 0x0f, 0x0f, 0x0f, 0xf0 };
	unsigned seed = 2026, bad = 0;
	long i;

	for (i = 0; i < 400000 && bad < 10; i++) {
		uint8_t b[16];
		size_t k, n = 1 + (size_t)(rand_r(&seed) % 15);

		for (k = 0; k < sizeof(b); k++)
			b[k] = (uint8_t)rand_r(&seed);
		for (k = 0; k < 3 && rand_r(&seed) % 2; k++)
			b[k] = first[(size_t)rand_r(&seed) % sizeof(first)];
		if (!same(b, n, AT))
			bad++;
	}
	CHECK_EQ(bad, 0);
}

int main(void)
{
	RUN(test_cases);
	RUN(test_walk_random);
	return unit_done();
}
