/*
 * What the patch runtime needs to know of one x86-64 instruction to move
 * it (patch.h): its length, whether it is a relative branch and where it
 * goes, and where a rip-relative displacement sits in it. Decoded with
 * Zydis 4 (docs/patch.md, "The decoder": it decodes AVX-512 and PKU,
 * reports displacements right, allocates nothing and is 3.5 to 4.5 times
 * faster than capstone 4), its instruction only, in minimal mode.
 *
 * Safe to call from any thread at once; allocates nothing, calls no
 * library function but memcpy and memset (Zydis's own).
 */
#ifndef MT_PATCH_DECODE_H
#define MT_PATCH_DECODE_H

#include <stddef.h>
#include <stdint.h>

enum mtp_ikind {
	MTP_I_PLAIN = 0, /* moves as it is, its rip-relative
			  * displacement (disp_off) recomputed */
	MTP_I_CALL,      /* call rel32: target */
	MTP_I_JMP,       /* jmp rel8 or rel32: target */
	MTP_I_JCC,       /* jcc rel8 or rel32: target, cc */
	MTP_I_CALL_IND,  /* call *REG or call *MEM (0xff /2), its ModRM at
			  * modrm_off, not through %rsp (a far call, or one
			  * whose operand %rsp makes, is FIXED) */
	MTP_I_FIXED,     /* cannot move: another relative branch (loop,
			  * jrcxz, xbegin: rel8 or no rel32 form), an
			  * eip-relative operand (0x67), a displacement not
			  * where it must be */
	MTP_I_INT3,      /* int3 (0xcc): someone's breakpoint */
	MTP_I_NOP        /* a no-op (0x90, 0x0f 0x1f ...): padding */
};

struct mtp_insn {
	uint64_t addr;     /* where it is */
	uint64_t target;   /* a relative branch's (CALL, JMP, JCC, FIXED) */
	uint8_t len;       /* its length */
	uint8_t kind;      /* enum mtp_ikind */
	uint8_t cc;        /* JCC: its condition (the low 4 bits of 0x7X) */
	uint8_t disp_off;  /* offset of its rip-relative disp32, 0: none */
	uint8_t modrm_off; /* CALL_IND: offset of its ModRM byte */
	uint8_t is_branch; /* a relative branch: target is set */
};

/* Prepares the decoder; 0, or -1. */
int mtp_decode_init(void);

/* Decodes the instruction at code (left bytes readable), which is at
 * addr, into *in: its length, or 0 when it is not a valid instruction
 * (or longer than left). */
size_t mtp_decode(const uint8_t *code, size_t left, uint64_t addr, struct mtp_insn *in);

/* The same, but only len, addr, is_branch, target and, of kind, whether
 * it is MTP_I_JCC are set (cc, disp_off and the other kinds are not):
 * for walking whole functions. Most instructions
 * (the one-byte and 0x0f maps without VEX, EVEX or XOP) are measured
 * here by table, some 15 times faster than Zydis; the rest by Zydis.
 * Agrees with mtp_decode() on every byte string (test-decode,
 * fuzz-decode). */
size_t mtp_decode_walk(const uint8_t *code, size_t left, uint64_t addr, struct mtp_insn *in);

#endif
