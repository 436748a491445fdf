/*
 * decoders: how well and how fast capstone 4 and Zydis 4 decode every
 * function of ELF files, for the patch runtime's choice of decoder
 * (docs/patch.md, "The decoder"; issue 29).
 *
 * Usage: decoders [-q] [-r RUNS] [-t SECONDS] FILE...
 *
 * The functions of a file are its function symbols (common/symtab.h, its
 * separate debug file's merged in as mt-record merges them: procsyms.h)
 * with a size, one per address (the largest; aliases counted once), whose
 * bytes lie in one executable PT_LOAD segment. Each is decoded from its
 * start to its end by five decoders:
 *
 *   capstone, detail      cs_disasm_iter with CS_OPT_DETAIL on, as
 *                         plugins/patch-runtime/patch.c does
 *   capstone, no detail   the same with CS_OPT_DETAIL off
 *   Zydis, full           ZydisDecoderDecodeFull (instruction and operands)
 *   Zydis, instruction    ZydisDecoderDecodeInstruction (no operands)
 *   Zydis, minimal        the same with ZYDIS_DECODER_MODE_MINIMAL
 *
 * and each decoder but capstone without detail also answers what patch.c
 * asks of every instruction: is it a relative branch, to where; has it a
 * rip-relative memory operand, and where in the instruction are its
 * displacement's bytes (offset, size).
 *
 * First a comparison walk, in lockstep: at each offset every decoder
 * decodes; one that cannot counts an undecodable instruction there, and
 * the walk goes on by Zydis's length (capstone's when Zydis cannot, one
 * byte when neither can). Lengths, branches and displacements are
 * compared; the displacement each decoder names is checked against the
 * bytes at the offset it gives. Then the timing: RUNS times (default 5)
 * each decoder in turn walks every function on its own (a byte skipped
 * where it cannot decode) for as many passes as take at least SECONDS
 * (default 0.3), timed with clock_gettime(CLOCK_MONOTONIC); the time per
 * function is the best run's over passes x functions.
 *
 * Prints on stdout one table, a row per file and decoder: functions,
 * functions fully decoded, undecodable instructions, instructions decoded,
 * ns per function and per instruction; then, unless -q, per file the
 * functions that hold undecodable instructions (the first few, with one
 * such instruction's bytes), and every disagreement counted, with
 * examples and their bytes.
 *
 * Exit status: 0, 1 for a file that cannot be read as ELF, 2 on a usage
 * error, 3 on a system error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <Zydis/Zydis.h>
#include <capstone/capstone.h>

#include "die.h"
#include "err.h"
#include "procsyms.h"
#include "symtab.h"
#include "xalloc.h"
#include "banned.h"

enum dec { CS_DETAIL, CS_PLAIN, ZY_FULL, ZY_INSN, ZY_MIN, NDEC };

static const char *const dec_name[NDEC] = {
	"capstone, detail", "capstone, no detail", "Zydis, full",
	"Zydis, instruction", "Zydis, minimal",
};

/* What patch.c needs of an instruction. */
struct facts {
	unsigned len;
	int branch;          /* a relative branch */
	uint64_t target;
	int rip;             /* a rip-relative memory operand */
	unsigned disp_off;   /* its displacement: offset in the instruction */
	unsigned disp_size;  /* and size, in bytes, as the decoder says */
	int64_t disp;        /* and value */
};

static csh cs_d, cs_p;
static cs_insn *cs_in_detail, *cs_in_plain;
static ZydisDecoder zy, zy_min;
static ZydisFormatter zy_fmt;

static void decoders_open(void)
{
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs_d) != CS_ERR_OK ||
	    cs_option(cs_d, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
	    cs_open(CS_ARCH_X86, CS_MODE_64, &cs_p) != CS_ERR_OK ||
	    !(cs_in_detail = cs_malloc(cs_d)) || !(cs_in_plain = cs_malloc(cs_p)))
		die(MT_EXIT_SYSTEM, "capstone: cannot open");
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&zy, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisDecoderInit(&zy_min, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisDecoderEnableMode(&zy_min, ZYDIS_DECODER_MODE_MINIMAL, 1)) ||
	    !ZYAN_SUCCESS(ZydisFormatterInit(&zy_fmt, ZYDIS_FORMATTER_STYLE_INTEL)))
		die(MT_EXIT_SYSTEM, "Zydis: cannot initialise");
}

static void cs_facts(const cs_insn *in, struct facts *f)
{
	const cs_x86 *x = &in->detail->x86;
	uint8_t i;

	if (cs_insn_group(cs_d, in, CS_GRP_BRANCH_RELATIVE) && x->op_count == 1 &&
	    x->operands[0].type == X86_OP_IMM) {
		f->branch = 1;
		f->target = (uint64_t)x->operands[0].imm;
	}
	for (i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP) {
			f->rip = 1;
			f->disp_off = x->encoding.disp_offset;
			f->disp_size = x->encoding.disp_size;
			f->disp = x->operands[i].mem.disp;
		}
}

/* From the operands. */
static void zy_full_facts(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *op,
			  uint64_t addr, struct facts *f)
{
	uint8_t i;

	for (i = 0; i < zi->operand_count_visible; i++) {
		if (op[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && op[i].imm.is_relative) {
			f->branch = 1;
			f->target = addr + zi->length + (uint64_t)op[i].imm.value.s;
		} else if (op[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
			   op[i].mem.base == ZYDIS_REGISTER_RIP) {
			f->rip = 1;
			f->disp_off = zi->raw.disp.offset;
			f->disp_size = zi->raw.disp.size / 8u;
			f->disp = zi->raw.disp.value;
		}
	}
}

/* From the encoding alone: a relative immediate; ModRM mod 00, r/m 101
 * (rip-relative in 64-bit mode, eip-relative with a 0x67 prefix), which
 * always has a 4-byte displacement (MOV CRn/DRn, whose mod is ignored,
 * have none). */
static void zy_raw_facts(const ZydisDecodedInstruction *zi, uint64_t addr, struct facts *f)
{
	int k;

	for (k = 0; k < 2; k++)
		if (zi->raw.imm[k].size && zi->raw.imm[k].is_relative) {
			f->branch = 1;
			f->target = addr + zi->length + (uint64_t)zi->raw.imm[k].value.s;
		}
	if ((zi->attributes & ZYDIS_ATTRIB_HAS_MODRM) && zi->raw.modrm.mod == 0 &&
	    zi->raw.modrm.rm == 5 && zi->raw.disp.size && zi->address_width == 64) {
		f->rip = 1;
		f->disp_off = zi->raw.disp.offset;
		f->disp_size = zi->raw.disp.size / 8u;
		f->disp = zi->raw.disp.value;
	}
}

/* Decode the instruction at p (left bytes, at address addr) with d: 1 and
 * *f, or 0 when d cannot. Inlined into each walk with d constant. */
static inline __attribute__((always_inline)) int
decode(enum dec d, const uint8_t *p, size_t left, uint64_t addr, struct facts *f)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecoderContext ctx;
	const uint8_t *code = p;
	uint64_t a = addr;

	memset(f, 0, sizeof(*f));
	switch (d) {
	case CS_DETAIL:
		if (!cs_disasm_iter(cs_d, &code, &left, &a, cs_in_detail))
			return 0;
		f->len = cs_in_detail->size;
		cs_facts(cs_in_detail, f);
		return 1;
	case CS_PLAIN:
		if (!cs_disasm_iter(cs_p, &code, &left, &a, cs_in_plain))
			return 0;
		f->len = cs_in_plain->size;
		return 1;
	case ZY_FULL:
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&zy, p, left, &zi, op)))
			return 0;
		f->len = zi.length;
		zy_full_facts(&zi, op, addr, f);
		return 1;
	case ZY_INSN:
	case ZY_MIN:
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(d == ZY_MIN ? &zy_min : &zy,
								&ctx, p, left, &zi)))
			return 0;
		f->len = zi.length;
		zy_raw_facts(&zi, addr, f);
		return 1;
	case NDEC:
		break;
	}
	return 0;
}

struct fn {
	uint64_t addr, size;
	const uint8_t *code;
	const char *name;
};

#define NAMES 6  /* functions named per decoder */
#define EXAMPLES 4

struct tally {
	uint64_t insns, undec;
	size_t full, badfns;
	char *names[NAMES];  /* "name (N): bytes, what Zydis says" */
	double ns_fn;        /* the best run's */
};

/* A kind of disagreement, counted, with a few examples. */
struct diff {
	const char *what;
	uint64_t n;
	char *ex[EXAMPLES];
};

enum {
	D_LEN,       /* capstone and Zydis decode different lengths */
	D_SELF,      /* a decoder's variants (detail or not, full or not) do */
	D_BRANCH,    /* capstone and Zydis disagree on a relative branch */
	D_BRANCH_RAW,/* Zydis's operands and its encoding do */
	D_RIP,       /* capstone and Zydis disagree on a rip-relative operand */
	D_RIP_RAW,   /* Zydis's operands and its encoding do */
	D_CS_DISP_SIZE, /* capstone's displacement size of a rip-relative operand is not 4 */
	D_ZY_DISP_SIZE, /* Zydis's is not 4 */
	D_CS_DISP_AT,   /* the bytes at capstone's displacement offset are not its value */
	D_ZY_DISP_AT,   /* Zydis's */
	ND
};

static const char *const diff_what[ND] = {
	"length: capstone and Zydis differ",
	"length: a library's variants differ",
	"relative branch or target: capstone and Zydis (full) differ",
	"relative branch or target: Zydis's operands and its encoding differ",
	"rip-relative operand or its displacement's offset: capstone and Zydis (full) differ",
	"rip-relative operand: Zydis's operands and its encoding differ",
	"rip-relative displacement size not 4 bytes: capstone",
	"rip-relative displacement size not 4 bytes: Zydis",
	"rip-relative displacement not where capstone says (offset + 4 bytes)",
	"rip-relative displacement not where Zydis says (offset + 4 bytes)",
};

struct file {
	const char *path;
	struct mt_symfile sf;  /* owns the names in fn, debug */
	const uint8_t *map;    /* the file, mapped */
	size_t mapsz;
	size_t nsyms, nfn;
	struct fn *fn;
	uint64_t bytes;
	uint64_t branches, rips; /* Zydis's relative branches, rip-relative operands */
	int has_symtab;
	const char *debug;
	struct tally t[NDEC];
	struct diff diff[ND];
};

static double now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die_errno(MT_EXIT_SYSTEM, "clock_gettime");
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void hex(char *buf, size_t cap, const uint8_t *p, size_t n)
{
	size_t i, k = 0;

	buf[0] = 0;
	for (i = 0; i < n && k + 4 < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%02x", i ? " " : "", p[i]);
}

/* The text of the instruction at p as each library prints it: capstone's
 * into cs (or "-"), Zydis's into zt. */
static void texts(const uint8_t *p, size_t left, uint64_t addr, char *cs, size_t cscap,
		  char *zt, size_t ztcap)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	const uint8_t *code = p;
	size_t l = left;
	uint64_t a = addr;

	if (cs_disasm_iter(cs_d, &code, &l, &a, cs_in_detail))
		snprintf(cs, cscap, "%u '%.31s %.100s'", cs_in_detail->size, cs_in_detail->mnemonic,
			 cs_in_detail->op_str);
	else
		snprintf(cs, cscap, "-");
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&zy, p, left, &zi, op)))
		snprintf(zt, ztcap, "-");
	else {
		char b[128];

		if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&zy_fmt, &zi, op,
								  zi.operand_count_visible,
								  b, sizeof(b), addr, NULL)))
			b[0] = 0;
		snprintf(zt, ztcap, "%u '%s'", zi.length, b);
	}
}

/* "name+0xOFF: bytes: capstone LEN 'text', Zydis LEN 'text'" and extra. */
static char *example(const struct fn *f, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static char *example(const struct fn *f, uint64_t off, const char *fmt, ...)
{
	char b[64], cs[160], zt[160], more[160] = "";
	size_t left = (size_t)(f->size - off);

	hex(b, sizeof(b), f->code + off, left < 15 ? left : 15);
	texts(f->code + off, left, f->addr + off, cs, sizeof(cs), zt, sizeof(zt));
	if (fmt) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(more, sizeof(more), fmt, ap);
		va_end(ap);
	}
	return xasprintf("%s+0x%" PRIx64 ": %s: capstone %s, Zydis %s%s%s", f->name, off, b,
			 cs, zt, *more ? "; " : "", more);
}

static void count(struct diff *d, const struct fn *f, uint64_t off, char *ex)
{
	if (d->n < EXAMPLES)
		d->ex[d->n] = ex ? ex : example(f, off, NULL);
	else
		free(ex);
	d->n++;
}

static int disp_at(const struct fn *f, uint64_t off, const struct facts *x)
{
	int32_t v;

	if (!x->disp_off || x->disp_off + 4u > x->len)
		return 0;
	memcpy(&v, f->code + off + x->disp_off, 4);
	return v == x->disp;
}

static int same_branch(const struct facts *a, const struct facts *b)
{
	return a->branch == b->branch && (!a->branch || a->target == b->target);
}

static int same_rip(const struct facts *a, const struct facts *b)
{
	return a->rip == b->rip && (!a->rip || (a->disp_off == b->disp_off && a->disp == b->disp));
}

static void compare(struct file *fl, const struct fn *f, uint64_t off,
		    const int *ok, const struct facts *x)
{
	struct diff *df = fl->diff;
	const struct facts *c = &x[CS_DETAIL], *z = &x[ZY_FULL];

	if ((ok[CS_DETAIL] && ok[CS_PLAIN] && x[CS_PLAIN].len != c->len) ||
	    ok[CS_DETAIL] != ok[CS_PLAIN] || ok[ZY_FULL] != ok[ZY_INSN] ||
	    ok[ZY_FULL] != ok[ZY_MIN] ||
	    (ok[ZY_FULL] && (x[ZY_INSN].len != z->len || x[ZY_MIN].len != z->len)))
		count(&df[D_SELF], f, off, NULL);
	if (ok[ZY_FULL]) {
		fl->branches += z->branch;
		fl->rips += z->rip;
		if (!same_branch(z, &x[ZY_INSN]) || !same_branch(z, &x[ZY_MIN]))
			count(&df[D_BRANCH_RAW], f, off, NULL);
		if (!same_rip(z, &x[ZY_INSN]) || !same_rip(z, &x[ZY_MIN]))
			count(&df[D_RIP_RAW], f, off, NULL);
		if (z->rip && z->disp_size != 4)
			count(&df[D_ZY_DISP_SIZE], f, off, NULL);
		if (z->rip && !disp_at(f, off, z))
			count(&df[D_ZY_DISP_AT], f, off, NULL);
	}
	if (ok[CS_DETAIL]) {
		if (c->rip && c->disp_size != 4)
			count(&df[D_CS_DISP_SIZE], f, off,
			      df[D_CS_DISP_SIZE].n < EXAMPLES ?
			      example(f, off, "capstone: disp at %u size %u, Zydis: at %u size %u",
				      c->disp_off, c->disp_size, z->disp_off, z->disp_size) : NULL);
		if (c->rip && !disp_at(f, off, c))
			count(&df[D_CS_DISP_AT], f, off, NULL);
	}
	if (!ok[CS_DETAIL] || !ok[ZY_FULL])
		return;
	if (c->len != z->len) {
		count(&df[D_LEN], f, off, NULL);
		return;
	}
	if (!same_branch(c, z))
		count(&df[D_BRANCH], f, off, NULL);
	if (!same_rip(c, z))
		count(&df[D_RIP], f, off, NULL);
}

static void undecodable(struct tally *t, const struct fn *f, uint64_t off, int first)
{
	t->undec++;
	if (!first)
		return;
	if (t->badfns < NAMES) {
		char b[64], cs[160], zt[160];
		size_t left = (size_t)(f->size - off);

		hex(b, sizeof(b), f->code + off, left < 15 ? left : 15);
		texts(f->code + off, left, f->addr + off, cs, sizeof(cs), zt, sizeof(zt));
		t->names[t->badfns] = xasprintf("%s+0x%" PRIx64 ": %s: capstone %s, Zydis %s",
						f->name, off, b, cs, zt);
	}
	t->badfns++;
}

static void lockstep(struct file *fl, const struct fn *f)
{
	struct facts x[NDEC];
	int ok[NDEC], bad[NDEC] = { 0 }, d;
	uint64_t off = 0;

	while (off < f->size) {
		const uint8_t *p = f->code + off;
		size_t left = (size_t)(f->size - off);
		uint64_t a = f->addr + off;

		ok[CS_DETAIL] = decode(CS_DETAIL, p, left, a, &x[CS_DETAIL]);
		ok[CS_PLAIN] = decode(CS_PLAIN, p, left, a, &x[CS_PLAIN]);
		ok[ZY_FULL] = decode(ZY_FULL, p, left, a, &x[ZY_FULL]);
		ok[ZY_INSN] = decode(ZY_INSN, p, left, a, &x[ZY_INSN]);
		ok[ZY_MIN] = decode(ZY_MIN, p, left, a, &x[ZY_MIN]);
		for (d = 0; d < NDEC; d++) {
			if (ok[d])
				fl->t[d].insns++;
			else
				undecodable(&fl->t[d], f, off, !bad[d]++);
		}
		compare(fl, f, off, ok, x);
		off += ok[ZY_FULL] ? x[ZY_FULL].len : ok[CS_DETAIL] ? x[CS_DETAIL].len : 1;
	}
	for (d = 0; d < NDEC; d++)
		if (!bad[d])
			fl->t[d].full++;
}

/* One pass of d over every function; what it found, summed, so that
 * nothing is optimised away. */
static inline __attribute__((always_inline)) uint64_t
walk(enum dec d, const struct fn *fn, size_t n)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct fn *f = &fn[i];
		uint64_t off = 0;
		struct facts x;

		while (off < f->size) {
			if (!decode(d, f->code + off, (size_t)(f->size - off), f->addr + off, &x)) {
				off++;
				continue;
			}
			sum += x.len + (x.branch ? x.target : 0) + (x.rip ? x.disp_off : 0);
			off += x.len;
		}
	}
	return sum;
}

static uint64_t walk_cs_detail(const struct fn *fn, size_t n) { return walk(CS_DETAIL, fn, n); }
static uint64_t walk_cs_plain(const struct fn *fn, size_t n) { return walk(CS_PLAIN, fn, n); }
static uint64_t walk_zy_full(const struct fn *fn, size_t n) { return walk(ZY_FULL, fn, n); }
static uint64_t walk_zy_insn(const struct fn *fn, size_t n) { return walk(ZY_INSN, fn, n); }
static uint64_t walk_zy_min(const struct fn *fn, size_t n) { return walk(ZY_MIN, fn, n); }

static uint64_t (*const walker[NDEC])(const struct fn *, size_t) = {
	walk_cs_detail, walk_cs_plain, walk_zy_full, walk_zy_insn, walk_zy_min,
};

static volatile uint64_t sink;

static void timing(struct file *fl, int runs, double seconds)
{
	long passes[NDEC];
	int d, r;

	if (!fl->nfn)
		return;
	for (d = 0; d < NDEC; d++) { /* a pass to warm up and size the runs */
		double t0 = now_ns(), dt;

		sink += walker[d](fl->fn, fl->nfn);
		dt = now_ns() - t0;
		passes[d] = dt >= seconds * 1e9 ? 1 : (long)(seconds * 1e9 / (dt > 1 ? dt : 1)) + 1;
		fl->t[d].ns_fn = -1;
	}
	for (r = 0; r < runs; r++)
		for (d = 0; d < NDEC; d++) {
			double t0 = now_ns(), ns;
			long k;

			for (k = 0; k < passes[d]; k++)
				sink += walker[d](fl->fn, fl->nfn);
			ns = (now_ns() - t0) / ((double)passes[d] * (double)fl->nfn);
			if (fl->t[d].ns_fn < 0 || ns < fl->t[d].ns_fn)
				fl->t[d].ns_fn = ns;
		}
}

static int by_addr_size(const void *a, const void *b)
{
	const struct mt_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* The function's bytes in the file: in one executable segment's. */
static const uint8_t *code_of(const struct mt_symtab *t, const uint8_t *map, uint64_t mapsz,
			      uint64_t addr, uint64_t size)
{
	size_t i;

	for (i = 0; i < t->nseg; i++) {
		const struct mt_seg *sg = &t->seg[i];

		if (sg->exec && addr >= sg->vaddr && addr - sg->vaddr < sg->filesz &&
		    size <= sg->filesz - (addr - sg->vaddr) &&
		    sg->offset + sg->filesz <= mapsz)
			return map + sg->offset + (addr - sg->vaddr);
	}
	return NULL;
}

static void load(struct file *fl)
{
	struct mt_symfile *sf = &fl->sf;
	struct stat st;
	const uint8_t *map;
	struct mt_sym *v;
	size_t i, n;
	int fd, err;

	if ((fd = open(fl->path, O_RDONLY | O_CLOEXEC)) < 0)
		die_errno(MT_EXIT_SYSTEM, "%s", fl->path);
	if ((err = mt_symfile_read(sf, fd, fl->path, NULL, 0, 0)) == MT_EMAGIC)
		die(MT_EXIT_DATA, "%s: not an ELF file", fl->path);
	if (err < 0)
		die_mt(err, "%s", fl->path);
	if (fstat(fd, &st))
		die_errno(MT_EXIT_SYSTEM, "%s", fl->path);
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		die_errno(MT_EXIT_SYSTEM, "%s: mmap", fl->path);
	close(fd);
	fl->map = map;
	fl->mapsz = (size_t)st.st_size;
	fl->has_symtab = sf->t.has_symtab;
	fl->debug = sf->debug && !sf->debug_err ? sf->debug : NULL;
	fl->nsyms = sf->t.n;
	v = sf->t.v;
	n = sf->t.n;
	qsort(v, n, sizeof(*v), by_addr_size);
	fl->fn = xmallocarray(n ? n : 1, sizeof(*fl->fn));
	for (i = 0; i < n; i++) {
		const struct mt_sym *s = &v[i], *best = s;
		size_t j;

		if (!s->size || s->bind == MT_SYM_PLT || s->bind == MT_SYM_JIT)
			continue;
		if (i + 1 < n && v[i + 1].addr == s->addr)
			continue; /* the largest at an address: the last */
		for (j = i; j-- > 0 && v[j].addr == s->addr;)
			if (v[j].size == s->size && mt_sym_better(&v[j], best))
				best = &v[j];
		if (!(fl->fn[fl->nfn].code = code_of(&sf->t, map, (uint64_t)st.st_size,
						     s->addr, s->size)))
			continue;
		fl->fn[fl->nfn].addr = s->addr;
		fl->fn[fl->nfn].size = s->size;
		fl->fn[fl->nfn].name = best->name;
		fl->bytes += s->size;
		fl->nfn++;
	}
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void row(const struct file *fl, int d)
{
	const struct tally *t = &fl->t[d];

	printf("%-22s %9zu  %-19s %9zu %6" PRIu64 " %10" PRIu64 " %9.0f %7.1f\n",
	       d ? "" : base(fl->path), fl->nfn, dec_name[d], t->full, t->undec, t->insns,
	       t->ns_fn, fl->nfn && t->insns ? t->ns_fn * (double)fl->nfn / (double)t->insns : 0);
}

static void details(const struct file *fl)
{
	int d, k;

	printf("\n== %s: %zu function symbols (%s%s%s), %zu functions, %" PRIu64 " bytes\n",
	       fl->path, fl->nsyms, fl->has_symtab ? ".symtab" : ".dynsym only",
	       fl->debug ? ", debug file " : "", fl->debug ? fl->debug : "", fl->nfn, fl->bytes);
	for (d = 0; d < NDEC; d++) {
		const struct tally *t = &fl->t[d];
		size_t i;

		if (!t->badfns)
			continue;
		printf("%s: %" PRIu64 " undecodable in %zu functions; the first of each:\n",
		       dec_name[d], t->undec, t->badfns);
		for (i = 0; i < t->badfns && i < NAMES; i++)
			printf("  %s\n", t->names[i]);
	}
	printf("compared: %" PRIu64 " relative branches, %" PRIu64
	       " rip-relative memory operands (as Zydis decodes them)\n", fl->branches, fl->rips);
	for (k = 0; k < ND; k++) {
		const struct diff *df = &fl->diff[k];
		uint64_t i;

		printf("%s: %" PRIu64 "\n", diff_what[k], df->n);
		for (i = 0; i < df->n && i < EXAMPLES; i++)
			printf("  %s\n", df->ex[i]);
	}
}

static void file_release(struct file *fl)
{
	int d, k;
	size_t i;

	for (d = 0; d < NDEC; d++)
		for (i = 0; i < NAMES; i++)
			free(fl->t[d].names[i]);
	for (k = 0; k < ND; k++)
		for (i = 0; i < EXAMPLES; i++)
			free(fl->diff[k].ex[i]);
	free(fl->fn);
	if (fl->map)
		munmap((void *)fl->map, fl->mapsz);
	mt_symfile_release(&fl->sf);
}

static long parse_long(const char *opt, const char *s, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		die(MT_EXIT_USAGE, "bad %s: '%s'", opt, s);
	return v;
}

static _Noreturn void usage(void)
{
	fprintf(stderr, "usage: decoders [-q] [-r RUNS] [-t SECONDS] FILE...\n");
	exit(MT_EXIT_USAGE);
}

int main(int argc, char **argv)
{
	struct file *fl;
	double seconds = 0.3;
	long runs = 5;
	int quiet = 0, c, i, nf, d;

	mt_set_progname(argv[0]);
	while ((c = getopt(argc, argv, "qr:t:")) != -1) {
		switch (c) {
		case 'q':
			quiet = 1;
			break;
		case 'r':
			runs = parse_long("-r", optarg, 1);
			break;
		case 't': {
			char *end;

			errno = 0;
			seconds = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(seconds >= 0))
				die(MT_EXIT_USAGE, "bad -t: '%s'", optarg);
			break;
		}
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	nf = argc - optind;
	decoders_open();
	fl = xcalloc((size_t)nf, sizeof(*fl));
	{
		ZyanU64 zv = ZydisGetVersion();
		int maj, min;

		cs_version(&maj, &min);
		printf("capstone %d.%d, Zydis %u.%u.%u\n", maj, min,
		       (unsigned)ZYDIS_VERSION_MAJOR(zv), (unsigned)ZYDIS_VERSION_MINOR(zv),
		       (unsigned)ZYDIS_VERSION_PATCH(zv));
	}
	printf("%-22s %9s  %-19s %9s %6s %10s %9s %7s\n", "file", "functions", "decoder",
	       "fully", "undec", "insns", "ns/fn", "ns/insn");
	for (i = 0; i < nf; i++) {
		size_t k;

		fl[i].path = argv[optind + i];
		mt_symfile_init(&fl[i].sf);
		for (k = 0; k < ND; k++)
			fl[i].diff[k].what = diff_what[k];
		load(&fl[i]);
		for (k = 0; k < fl[i].nfn; k++)
			lockstep(&fl[i], &fl[i].fn[k]);
		timing(&fl[i], (int)runs, seconds);
		for (d = 0; d < NDEC; d++)
			row(&fl[i], d);
		fflush(stdout);
	}
	for (i = 0; i < nf; i++) {
		if (!quiet)
			details(&fl[i]);
		file_release(&fl[i]);
	}
	free(fl);
	cs_free(cs_in_detail, 1);
	cs_free(cs_in_plain, 1);
	cs_close(&cs_d);
	cs_close(&cs_p);
	close_stdout_or_die();
	return 0;
}
