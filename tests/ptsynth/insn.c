/*
 * Instruction classes for PT. Capstone gives the length and a direct
 * branch's target; the class comes from the opcode bytes, by the table of
 * perf's intel_pt_insn_decoder() (tools/perf/util/intel-pt-decoder), so
 * that the packets we emit are the ones perf's decoder asks for.
 */
#include <capstone/capstone.h>
#include <string.h>

#include "die.h"
#include "ptsynth.h"
#include "banned.h"

static csh cs;
static cs_insn *one;

int insn_init(void)
{
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -1;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	one = cs_malloc(cs);
	return one ? 0 : -1;
}

void insn_release(void)
{
	if (one)
		cs_free(one, 1);
	one = NULL;
	cs_close(&cs);
}

static int is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0xf0: case 0xf2: case 0xf3: case 0x2e: case 0x36: case 0x3e:
	case 0x26: case 0x64: case 0x65: case 0x66: case 0x67:
		return 1;
	default:
		return 0;
	}
}

static int is_string_op(uint8_t op)
{
	return (op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) ||
	       (op >= 0x6c && op <= 0x6f);
}

/* The class by perf's table; p points past the prefixes. */
static int classify(const uint8_t *p, const uint8_t *end)
{
	uint8_t op, reg;

	if (p >= end)
		return IC_OTHER;
	op = p[0];
	/* VEX and EVEX (perf: insn_is_avx): never branches */
	if (op == 0xc4 || op == 0xc5 || op == 0x62)
		return IC_OTHER;
	switch (op) {
	case 0x0f:
		if (p + 1 >= end)
			return IC_OTHER;
		switch (p[1]) {
		case 0x05: case 0x34:
			return IC_SYSCALL;
		case 0x07: case 0x35:
			return IC_SYSRET;
		case 0x01:
			if (p + 2 < end && (p[2] == 0xc2 || p[2] == 0xc3))
				return IC_UNSUPPORTED;	/* vmlaunch, vmresume */
			return IC_OTHER;
		default:
			if (p[1] >= 0x80 && p[1] <= 0x8f)
				return IC_JCC;
			return IC_OTHER;
		}
	case 0xc2: case 0xc3: case 0xca: case 0xcb:
		return IC_RET;
	case 0xcf:
		return IC_IRET;
	case 0xcc: case 0xcd: case 0xce:
		return IC_INT;
	case 0xe8:
		return IC_CALL;
	case 0x9a:
		return IC_CALL_IND;
	case 0xe0: case 0xe1: case 0xe2: case 0xe3:
		return IC_JCC;
	case 0xe9: case 0xeb:
		return IC_JMP;
	case 0xea:
		return IC_JMP_IND;
	case 0xff:
		if (p + 1 >= end)
			return IC_OTHER;
		reg = (p[1] >> 3) & 7;
		if (reg == 2 || reg == 3)
			return IC_CALL_IND;
		if (reg == 4 || reg == 5)
			return IC_JMP_IND;
		return IC_OTHER;
	default:
		if (op >= 0x70 && op <= 0x7f)
			return IC_JCC;
		return IC_OTHER;
	}
}

/* Length of the ModRM byte and what follows it (SIB, displacement). */
static int modrm_len(const uint8_t *p, const uint8_t *end)
{
	uint8_t mod, rm;
	int len = 1;

	if (p >= end)
		return -1;
	mod = p[0] >> 6;
	rm = p[0] & 7;
	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (p + 1 >= end)
			return -1;
		len++;
		if (mod == 0 && (p[1] & 7) == 5)
			len += 4;
	} else if (mod == 0 && rm == 5) {
		len += 4;	/* rip-relative */
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len;
}

/*
 * The length of an instruction that capstone 4 does not know: VEX and EVEX
 * (AVX-512 such as vptestnmb, which glibc's string functions use) and the
 * shadow stack instructions of the unwinder (rdssp, incssp). None is a
 * branch, so the length is all that is needed. 0 if buf starts none of
 * them.
 */
static int vex_length(const uint8_t *buf, const uint8_t *end)
{
	const uint8_t *p = buf;
	int map, ml, imm = 0;
	uint8_t op;

	while (p < end && is_legacy_prefix(*p))
		p++;
	if (p < end && (*p & 0xf0) == 0x40 && p + 1 < end && p[1] == 0x0f)
		p++;			/* REX */
	if (p + 2 < end && p[0] == 0x0f &&
	    ((p[1] >= 0x18 && p[1] <= 0x1f) || p[1] == 0xae || p[1] == 0x01)) {
		/* hint nops (rdssp, endbr64), incssp and the like: no
		 * immediate, a ModRM */
		ml = modrm_len(p + 2, end);
		return ml < 0 || p + 2 + ml > end ? 0 : (int)(p + 2 - buf) + ml;
	}
	if (p + 4 > end)
		return 0;
	if (p[0] == 0xc5) {
		map = 1;
		p += 2;
	} else if (p[0] == 0xc4) {
		map = p[1] & 0x1f;
		p += 3;
	} else if (p[0] == 0x62) {
		map = p[1] & 3;
		p += 4;
	} else {
		return 0;
	}
	if (p >= end || map < 1 || map > 3)
		return 0;
	op = *p++;
	if (map == 1 && op == 0x77)
		return (int)(p - buf);	/* vzeroupper, vzeroall */
	ml = modrm_len(p, end);
	if (ml < 0)
		return 0;
	if (map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) ||
				      op == 0xc2 || (op >= 0xc4 && op <= 0xc6))))
		imm = 1;
	if (p + ml + imm > end)
		return 0;
	return (int)(p - buf) + ml + imm;
}

int insn_decode(const uint8_t *buf, size_t n, uint64_t addr,
		struct insn *in)
{
	const uint8_t *code = buf, *p, *end;
	size_t size = n;
	uint64_t a = addr;
	int rep = 0;

	if (!cs_disasm_iter(cs, &code, &size, &a, one)) {
		int len = vex_length(buf, buf + n);

		if (!len)
			return -1;
		memset(in, 0, sizeof(*in));
		in->addr = addr;
		in->len = (uint8_t)len;
		memcpy(in->bytes, buf, (size_t)len);
		in->cls = IC_OTHER;
		return 0;
	}
	memset(in, 0, sizeof(*in));
	in->addr = addr;
	in->len = (uint8_t)one->size;
	memcpy(in->bytes, buf, one->size);
	p = buf;
	end = buf + one->size;
	while (p < end && is_legacy_prefix(*p)) {
		if (*p == 0xf2 || *p == 0xf3)
			rep = 1;
		p++;
	}
	if (p < end && (*p & 0xf0) == 0x40)
		p++;			/* REX */
	in->cls = (uint8_t)classify(p, end);
	in->rep = rep && p < end && is_string_op(*p);
	in->cpuid = p + 1 < end && p[0] == 0x0f && p[1] == 0xa2;
	if (in->cls == IC_JCC || in->cls == IC_JMP || in->cls == IC_CALL) {
		const cs_x86 *x = &one->detail->x86;

		if (x->op_count < 1 || x->operands[0].type != X86_OP_IMM)
			die(MT_EXIT_SYSTEM, "capstone gives no target for the branch at %#llx",
			    (unsigned long long)addr);
		in->target = (uint64_t)x->operands[0].imm;
	}
	return 0;
}

const char *insn_class_name(int cls)
{
	static const char *const names[] = {
		"other", "jcc", "jmp", "call", "indirect jmp", "indirect call",
		"ret", "syscall", "int", "iret", "sysret", "unsupported",
	};

	return cls >= 0 && cls <= IC_UNSUPPORTED ? names[cls] : "?";
}
