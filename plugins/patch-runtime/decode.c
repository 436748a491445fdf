/*
 * One x86-64 instruction's facts for moving it (decode.h), with Zydis.
 */
#include <Zydis/Zydis.h>
#include <string.h>

#include "decode.h"
#include "../../common/banned.h"

static ZydisDecoder dec;

int mtp_decode_init(void)
{
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisDecoderEnableMode(&dec, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE)))
		return -1;
	return 0;
}

static int is_jcc(const ZydisDecodedInstruction *z)
{
	return (z->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT && (z->opcode & 0xf0) == 0x70) ||
	       (z->opcode_map == ZYDIS_OPCODE_MAP_0F && (z->opcode & 0xf0) == 0x80);
}

size_t mtp_decode(const uint8_t *code, size_t left, uint64_t addr, struct mtp_insn *in)
{
	ZydisDecodedInstruction z;
	ZydisDecoderContext ctx;
	unsigned k, imm = 0;

	memset(in, 0, sizeof(*in));
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, &ctx, code, left, &z)) ||
	    !z.length || z.length > left)
		return 0;
	in->addr = addr;
	in->len = z.length;
	for (k = 0; k < 2; k++) {
		imm += z.raw.imm[k].size / 8u;
		if (z.raw.imm[k].size && z.raw.imm[k].is_relative) {
			in->is_branch = 1;
			in->target = addr + z.length + (uint64_t)z.raw.imm[k].value.s;
		}
	}
	if (in->is_branch) {
		if (z.mnemonic == ZYDIS_MNEMONIC_CALL && z.raw.imm[0].size == 32)
			in->kind = MTP_I_CALL;
		else if (z.mnemonic == ZYDIS_MNEMONIC_JMP)
			in->kind = MTP_I_JMP;
		else if (is_jcc(&z)) {
			in->kind = MTP_I_JCC;
			in->cc = z.opcode & 0x0f;
		} else
			in->kind = MTP_I_FIXED;
		return in->len;
	}
	switch (z.mnemonic) {
	case ZYDIS_MNEMONIC_CALL: {
		unsigned rm = z.raw.modrm.rm | (z.raw.rex.B << 3),
			 base = z.raw.sib.base | (z.raw.rex.B << 3);

		/* 0xff /2 only (not /3, far), its operand without %rsp: a
		 * copy that pushes first must read what the call read */
		if (z.opcode != 0xff || !(z.attributes & ZYDIS_ATTRIB_HAS_MODRM) ||
		    z.raw.modrm.reg != 2 || (z.raw.modrm.mod == 3 && rm == 4) ||
		    (z.raw.modrm.mod != 3 && z.raw.modrm.rm == 4 && base == 4)) {
			in->kind = MTP_I_FIXED;
			return in->len;
		}
		in->kind = MTP_I_CALL_IND;
		in->modrm_off = z.raw.modrm.offset;
		break; /* its rip-relative displacement, below */
	}
	case ZYDIS_MNEMONIC_INT3:
		in->kind = MTP_I_INT3;
		return in->len;
	case ZYDIS_MNEMONIC_NOP:
		in->kind = MTP_I_NOP;
		break;
	default:
		break;
	}
	if ((z.attributes & ZYDIS_ATTRIB_HAS_MODRM) && z.raw.modrm.mod == 0 &&
	    z.raw.modrm.rm == 5) {
		/* rip-relative: a disp32 that only the immediate follows */
		if (z.address_width != 64 || z.raw.disp.size != 32 || !z.raw.disp.offset ||
		    z.raw.disp.offset + 4u + imm != z.length)
			in->kind = MTP_I_FIXED;
		else
			in->disp_off = z.raw.disp.offset;
	}
	if (in->kind == MTP_I_CALL_IND && z.address_width != 64)
		in->kind = MTP_I_FIXED; /* 0x67: an operand of 32 bits */
	return in->len;
}

/*
 * The table walk (mtp_decode_walk): instructions of the one-byte map and
 * of the 0x0f map whose every encoding is valid, measured here; anything
 * else (VEX, EVEX, XOP, x87, 0x0f 0x38/0x3a, mandatory prefixes, lock,
 * groups with invalid members, 0x66 on a branch) goes to Zydis.
 */
enum {
	W_M = 1,    /* a ModRM byte (and SIB, displacement) */
	W_B = 2,    /* an 8-bit immediate */
	W_Z = 4,    /* a 32-bit immediate (16 with 0x66 and no REX.W) */
	W_R8 = 8,   /* a relative branch, rel8 */
	W_R32 = 16, /* a relative branch, rel32 */
	W_REP = 32, /* 0xf2/0xf3 prefixes may come before it */
	W_OK = 64,  /* measured here (else Zydis) */
	W_NOTREG = 128 /* W_M, but some ModRM.reg values are not valid: see
			* reg_ok() */
};

#define OK W_OK
static const uint8_t map1[256] = {
	/* 00-3f: ALU ops (x0-x3 ModRM, x4 imm8, x5 imm32); the rest
	 * prefixes (handled before) or invalid in 64-bit mode */
	[0x00] = OK | W_M, [0x01] = OK | W_M, [0x02] = OK | W_M, [0x03] = OK | W_M,
	[0x04] = OK | W_B, [0x05] = OK | W_Z,
	[0x08] = OK | W_M, [0x09] = OK | W_M, [0x0a] = OK | W_M, [0x0b] = OK | W_M,
	[0x0c] = OK | W_B, [0x0d] = OK | W_Z,
	[0x10] = OK | W_M, [0x11] = OK | W_M, [0x12] = OK | W_M, [0x13] = OK | W_M,
	[0x14] = OK | W_B, [0x15] = OK | W_Z,
	[0x18] = OK | W_M, [0x19] = OK | W_M, [0x1a] = OK | W_M, [0x1b] = OK | W_M,
	[0x1c] = OK | W_B, [0x1d] = OK | W_Z,
	[0x20] = OK | W_M, [0x21] = OK | W_M, [0x22] = OK | W_M, [0x23] = OK | W_M,
	[0x24] = OK | W_B, [0x25] = OK | W_Z,
	[0x28] = OK | W_M, [0x29] = OK | W_M, [0x2a] = OK | W_M, [0x2b] = OK | W_M,
	[0x2c] = OK | W_B, [0x2d] = OK | W_Z,
	[0x30] = OK | W_M, [0x31] = OK | W_M, [0x32] = OK | W_M, [0x33] = OK | W_M,
	[0x34] = OK | W_B, [0x35] = OK | W_Z,
	[0x38] = OK | W_M, [0x39] = OK | W_M, [0x3a] = OK | W_M, [0x3b] = OK | W_M,
	[0x3c] = OK | W_B, [0x3d] = OK | W_Z,
	/* push, pop */
	[0x50] = OK, [0x51] = OK, [0x52] = OK, [0x53] = OK,
	[0x54] = OK, [0x55] = OK, [0x56] = OK, [0x57] = OK,
	[0x58] = OK, [0x59] = OK, [0x5a] = OK, [0x5b] = OK,
	[0x5c] = OK, [0x5d] = OK, [0x5e] = OK, [0x5f] = OK,
	[0x63] = OK | W_M, /* movsxd */
	[0x68] = OK | W_Z, [0x69] = OK | W_M | W_Z, [0x6a] = OK | W_B, [0x6b] = OK | W_M | W_B,
	[0x6c] = OK | W_REP, [0x6d] = OK | W_REP, [0x6e] = OK | W_REP, [0x6f] = OK | W_REP,
	/* jcc rel8 */
	[0x70] = OK | W_R8 | W_REP, [0x71] = OK | W_R8 | W_REP, [0x72] = OK | W_R8 | W_REP,
	[0x73] = OK | W_R8 | W_REP, [0x74] = OK | W_R8 | W_REP, [0x75] = OK | W_R8 | W_REP,
	[0x76] = OK | W_R8 | W_REP, [0x77] = OK | W_R8 | W_REP, [0x78] = OK | W_R8 | W_REP,
	[0x79] = OK | W_R8 | W_REP, [0x7a] = OK | W_R8 | W_REP, [0x7b] = OK | W_R8 | W_REP,
	[0x7c] = OK | W_R8 | W_REP, [0x7d] = OK | W_R8 | W_REP, [0x7e] = OK | W_R8 | W_REP,
	[0x7f] = OK | W_R8 | W_REP,
	[0x80] = OK | W_M | W_B, [0x81] = OK | W_M | W_Z, [0x83] = OK | W_M | W_B,
	[0x84] = OK | W_M, [0x85] = OK | W_M, [0x86] = OK | W_M, [0x87] = OK | W_M,
	[0x88] = OK | W_M, [0x89] = OK | W_M, [0x8a] = OK | W_M, [0x8b] = OK | W_M,
	[0x8d] = OK | W_M | W_NOTREG, /* lea: not a register */
	[0x8f] = OK | W_M | W_NOTREG, /* pop: /0 only (else XOP) */
	[0x90] = OK | W_REP, /* nop, pause */
	[0x91] = OK, [0x92] = OK, [0x93] = OK, [0x94] = OK, [0x95] = OK, [0x96] = OK,
	[0x97] = OK, [0x98] = OK, [0x99] = OK, [0x9b] = OK, [0x9c] = OK, [0x9d] = OK,
	[0x9e] = OK, [0x9f] = OK,
	[0xa4] = OK | W_REP, [0xa5] = OK | W_REP, [0xa6] = OK | W_REP, [0xa7] = OK | W_REP,
	[0xa8] = OK | W_B, [0xa9] = OK | W_Z,
	[0xaa] = OK | W_REP, [0xab] = OK | W_REP, [0xac] = OK | W_REP, [0xad] = OK | W_REP,
	[0xae] = OK | W_REP, [0xaf] = OK | W_REP,
	[0xb0] = OK | W_B, [0xb1] = OK | W_B, [0xb2] = OK | W_B, [0xb3] = OK | W_B,
	[0xb4] = OK | W_B, [0xb5] = OK | W_B, [0xb6] = OK | W_B, [0xb7] = OK | W_B,
	/* 0xb8-0xbf: imm32, imm64 with REX.W (below) */
	[0xb8] = OK | W_Z, [0xb9] = OK | W_Z, [0xba] = OK | W_Z, [0xbb] = OK | W_Z,
	[0xbc] = OK | W_Z, [0xbd] = OK | W_Z, [0xbe] = OK | W_Z, [0xbf] = OK | W_Z,
	[0xc0] = OK | W_M | W_B | W_NOTREG, [0xc1] = OK | W_M | W_B | W_NOTREG,
	[0xc3] = OK | W_REP, /* ret (repz ret) */
	[0xc6] = OK | W_M | W_B | W_NOTREG, [0xc7] = OK | W_M | W_Z | W_NOTREG,
	[0xc9] = OK, [0xcc] = OK, [0xcd] = OK | W_B,
	[0xd0] = OK | W_M | W_NOTREG, [0xd1] = OK | W_M | W_NOTREG,
	[0xd2] = OK | W_M | W_NOTREG, [0xd3] = OK | W_M | W_NOTREG,
	[0xe8] = OK | W_R32 | W_REP, [0xe9] = OK | W_R32 | W_REP, [0xeb] = OK | W_R8 | W_REP,
	[0xf4] = OK,
	[0xf6] = OK | W_M | W_NOTREG, [0xf7] = OK | W_M | W_NOTREG, /* test: imm */
	[0xf8] = OK, [0xf9] = OK, [0xfa] = OK, [0xfb] = OK, [0xfc] = OK, [0xfd] = OK,
	[0xfe] = OK | W_M | W_NOTREG, [0xff] = OK | W_M | W_NOTREG,
};

/* 0x0f xx with no 0x66, 0xf2 or 0xf3 prefix */
static const uint8_t map2[256] = {
	[0x05] = OK, [0x0b] = OK, [0x31] = OK, [0xa2] = OK, /* syscall ud2 rdtsc cpuid */
	[0x10] = OK | W_M, [0x11] = OK | W_M, [0x14] = OK | W_M, [0x15] = OK | W_M,
	[0x1f] = OK | W_M, /* nop */
	[0x28] = OK | W_M, [0x29] = OK | W_M, [0x2e] = OK | W_M, [0x2f] = OK | W_M,
	/* cmovcc */
	[0x40] = OK | W_M, [0x41] = OK | W_M, [0x42] = OK | W_M, [0x43] = OK | W_M,
	[0x44] = OK | W_M, [0x45] = OK | W_M, [0x46] = OK | W_M, [0x47] = OK | W_M,
	[0x48] = OK | W_M, [0x49] = OK | W_M, [0x4a] = OK | W_M, [0x4b] = OK | W_M,
	[0x4c] = OK | W_M, [0x4d] = OK | W_M, [0x4e] = OK | W_M, [0x4f] = OK | W_M,
	[0x51] = OK | W_M, [0x54] = OK | W_M, [0x55] = OK | W_M, [0x56] = OK | W_M,
	[0x57] = OK | W_M, [0x58] = OK | W_M, [0x59] = OK | W_M, [0x5c] = OK | W_M,
	[0x5d] = OK | W_M, [0x5e] = OK | W_M, [0x5f] = OK | W_M,
	/* jcc rel32 */
	[0x80] = OK | W_R32, [0x81] = OK | W_R32, [0x82] = OK | W_R32, [0x83] = OK | W_R32,
	[0x84] = OK | W_R32, [0x85] = OK | W_R32, [0x86] = OK | W_R32, [0x87] = OK | W_R32,
	[0x88] = OK | W_R32, [0x89] = OK | W_R32, [0x8a] = OK | W_R32, [0x8b] = OK | W_R32,
	[0x8c] = OK | W_R32, [0x8d] = OK | W_R32, [0x8e] = OK | W_R32, [0x8f] = OK | W_R32,
	/* setcc */
	[0x90] = OK | W_M, [0x91] = OK | W_M, [0x92] = OK | W_M, [0x93] = OK | W_M,
	[0x94] = OK | W_M, [0x95] = OK | W_M, [0x96] = OK | W_M, [0x97] = OK | W_M,
	[0x98] = OK | W_M, [0x99] = OK | W_M, [0x9a] = OK | W_M, [0x9b] = OK | W_M,
	[0x9c] = OK | W_M, [0x9d] = OK | W_M, [0x9e] = OK | W_M, [0x9f] = OK | W_M,
	[0xa3] = OK | W_M, [0xa4] = OK | W_M | W_B, [0xa5] = OK | W_M,
	[0xab] = OK | W_M, [0xac] = OK | W_M | W_B, [0xad] = OK | W_M, [0xaf] = OK | W_M,
	[0xb0] = OK | W_M, [0xb1] = OK | W_M, [0xb3] = OK | W_M,
	[0xb6] = OK | W_M, [0xb7] = OK | W_M, [0xbb] = OK | W_M,
	[0xbc] = OK | W_M, [0xbd] = OK | W_M, [0xbe] = OK | W_M, [0xbf] = OK | W_M,
	[0xc0] = OK | W_M, [0xc1] = OK | W_M,
	[0xc8] = OK, [0xc9] = OK, [0xca] = OK, [0xcb] = OK, /* bswap */
	[0xcc] = OK, [0xcd] = OK, [0xce] = OK, [0xcf] = OK,
};
#undef OK

/* Whether ModRM m is valid for opcode op of the one-byte map (W_NOTREG). */
static int reg_ok(uint8_t op, uint8_t m)
{
	unsigned reg = (m >> 3) & 7, mod = m >> 6;

	switch (op) {
	case 0x8d: return mod != 3;                      /* lea */
	case 0x8f: case 0xc6: case 0xc7: return reg == 0; /* pop, mov */
	case 0xc0: case 0xc1: case 0xd0: case 0xd1: case 0xd2: case 0xd3:
		return reg != 6;                         /* shifts, not sal's alias */
	case 0xf6: case 0xf7: return reg != 1;           /* not test's alias */
	case 0xfe: return reg <= 1;                      /* inc, dec */
	case 0xff: return reg != 7 && !((reg == 3 || reg == 5) && mod == 3);
	}
	return 0;
}

size_t mtp_decode_walk(const uint8_t *code, size_t left, uint64_t addr, struct mtp_insn *in)
{
	size_t k = 0, max = left < 15 ? left : 15;
	int opsize = 0, rep = 0, rexw = 0, jcc;
	uint8_t op, fl;

	for (;; k++) { /* prefixes */
		if (k >= max || k >= 4)
			goto zydis;
		switch (code[k]) {
		case 0x66: opsize = 1; continue;
		case 0x67: continue;
		case 0xf2: case 0xf3: rep = 1; continue;
		case 0x2e: case 0x3e: case 0x26: case 0x36: case 0x64: case 0x65: continue;
		}
		break;
	}
	if ((code[k] & 0xf0) == 0x40) { /* REX */
		rexw = (code[k] & 8) != 0;
		if (++k >= max)
			goto zydis;
	}
	op = code[k++];
	if (op == 0x0f) {
		if (k >= max || opsize || rep)
			goto zydis;
		op = code[k++];
		if (!((fl = map2[op]) & W_OK))
			goto zydis;
		jcc = (op & 0xf0) == 0x80;
	} else {
		jcc = (op & 0xf0) == 0x70;
		if (!((fl = map1[op]) & W_OK) || (rep && !(fl & W_REP)))
			goto zydis;
		if (fl & (W_R8 | W_R32) && opsize)
			goto zydis; /* rel16 or not: the vendors differ */
		if (op >= 0xb8 && op <= 0xbf && rexw)
			fl = W_OK, k += 8; /* mov $imm64 */
		if ((op == 0xf6 || op == 0xf7) && k < max && ((code[k] >> 3) & 7) == 0)
			fl |= op == 0xf6 ? W_B : W_Z; /* test $imm */
	}
	if (fl & W_M) {
		uint8_t m, mod, rm;

		if (k >= max)
			goto zydis;
		m = code[k++];
		mod = m >> 6;
		rm = m & 7;
		if (fl & W_NOTREG && !reg_ok(op, m))
			goto zydis;
		if (mod != 3 && rm == 4) { /* SIB */
			if (k >= max)
				goto zydis;
			if (mod == 0 && (code[k] & 7) == 5)
				k += 4;
			k++;
		}
		if (mod == 1)
			k += 1;
		else if (mod == 2 || (mod == 0 && rm == 5))
			k += 4;
	}
	if (fl & W_B)
		k += 1;
	if (fl & W_Z)
		k += opsize && !rexw ? 2 : 4;
	if (fl & W_R8)
		k += 1;
	if (fl & W_R32)
		k += 4;
	if (k > max)
		goto zydis;
	memset(in, 0, sizeof(*in));
	in->addr = addr;
	in->len = (uint8_t)k;
	if (fl & (W_R8 | W_R32) && jcc)
		in->kind = MTP_I_JCC;
	if (fl & W_R8) {
		in->is_branch = 1;
		in->target = addr + k + (uint64_t)(int64_t)(int8_t)code[k - 1];
	} else if (fl & W_R32) {
		int32_t rel;

		memcpy(&rel, code + k - 4, 4);
		in->is_branch = 1;
		in->target = addr + k + (uint64_t)(int64_t)rel;
	}
	return k;
zydis:
	return mtp_decode(code, left, addr, in);
}
