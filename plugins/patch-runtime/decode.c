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
	case ZYDIS_MNEMONIC_CALL:
		in->kind = MTP_I_CALL_IND;
		return in->len;
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
	return in->len;
}
