#include <elf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cmp.h"
#include "ehframe.h"
#include "err.h"
#include "banned.h"

/* DW_EH_PE_*: a pointer's format (low nibble) and what it is relative to */
enum {
	PE_ABSPTR = 0x00,
	PE_ULEB128 = 0x01,
	PE_UDATA2 = 0x02,
	PE_UDATA4 = 0x03,
	PE_UDATA8 = 0x04,
	PE_SLEB128 = 0x09,
	PE_SDATA2 = 0x0a,
	PE_SDATA4 = 0x0b,
	PE_SDATA8 = 0x0c,
	PE_PCREL = 0x10,
	PE_DATAREL = 0x30,
	PE_INDIRECT = 0x80
};

/* DW_CFA_* read here */
enum {
	CFA_NOP = 0x00,
	CFA_SET_LOC = 0x01,
	CFA_ADVANCE_LOC1 = 0x02,
	CFA_ADVANCE_LOC2 = 0x03,
	CFA_ADVANCE_LOC4 = 0x04,
	CFA_OFFSET_EXTENDED = 0x05,
	CFA_DEF_CFA = 0x0c,
	CFA_OFFSET_EXTENDED_SF = 0x11,
	CFA_MIPS_ADVANCE_LOC8 = 0x1d,
	CFA_ADVANCE_LOC = 0x40, /* high two bits; the delta in the low six */
	CFA_OFFSET = 0x80       /* high two bits; the register in the low six */
};

/* An augmentation string longer than any compiler writes is refused, and
 * at most CIE_OPS_MAX of a CIE's instructions are read: a CIE is read
 * again for each FDE whose CIE differs from the one before, in bounded
 * time. */
#define AUG_MAX 16
#define CIE_OPS_MAX 64

/* Bytes [at, end) of the section d; a read past end sets bad and reads 0. */
struct cur {
	const unsigned char *d;
	size_t at, end;
	int bad;
};

/* n (at most 8) bytes, little-endian */
static uint64_t get(struct cur *c, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if (c->bad || c->end - c->at < n) {
		c->bad = 1;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)c->d[c->at + i] << (8 * i);
	c->at += n;
	return v;
}

/* A LEB128 number of at most 10 bytes (64 bits), signed or not */
static uint64_t leb(struct cur *c, int is_signed)
{
	uint64_t v = 0;
	unsigned shift = 0, b;

	do {
		if (c->bad || c->at >= c->end || shift >= 70) {
			c->bad = 1;
			return 0;
		}
		b = c->d[c->at++];
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (is_signed && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	return leb(c, 0);
}

static int64_t sleb(struct cur *c)
{
	return (int64_t)leb(c, 1);
}

/* The value of a pointer of format enc (its low nibble); -1: a format
 * not read here, or past the end. */
static int format(struct cur *c, unsigned enc, unsigned ptr_size, uint64_t *v)
{
	switch (enc & 0x0f) {
	case PE_ABSPTR:
		*v = get(c, ptr_size);
		break;
	case PE_UDATA2:
		*v = get(c, 2);
		break;
	case PE_UDATA4:
		*v = get(c, 4);
		break;
	case PE_UDATA8:
	case PE_SDATA8:
		*v = get(c, 8);
		break;
	case PE_SDATA2:
		*v = (uint64_t)(int64_t)(int16_t)get(c, 2);
		break;
	case PE_SDATA4:
		*v = (uint64_t)(int64_t)(int32_t)get(c, 4);
		break;
	case PE_ULEB128:
		*v = uleb(c);
		break;
	case PE_SLEB128:
		*v = (uint64_t)sleb(c);
		break;
	default:
		return -1;
	}
	return c->bad ? -1 : 0;
}

/* A pointer in encoding enc at c's position, made absolute; -1 when it
 * cannot be read or is relative to what is not known here. */
static int pointer(struct cur *c, unsigned enc, const struct mt_ehframe_where *w,
		   uint64_t *v)
{
	uint64_t pc = w->addr + c->at; /* the field's own address */

	if ((enc & PE_INDIRECT) || format(c, enc, w->ptr_size, v))
		return -1;
	switch (enc & 0x70) {
	case 0:
		break;
	case PE_PCREL:
		*v += pc;
		break;
	case PE_DATAREL:
		if (!w->has_dbase)
			return -1;
		*v += w->dbase;
		break;
	default: /* textrel, funcrel, aligned */
		return -1;
	}
	if (w->ptr_size == 4)
		*v &= 0xffffffffu;
	return 0;
}

/* What an FDE needs of its CIE. */
struct cie {
	size_t off;     /* the CIE's record offset (SIZE_MAX: none read) */
	int ok;         /* read, and its FDEs can be */
	unsigned enc;   /* the FDEs' pointer encoding ('R') */
	int z;          /* FDEs carry augmentation data ('z') */
	int called;     /* its initial rules are those of a call */
};

/* The CFA at a call (the stack pointer register and the offset to the
 * return address's slot and beyond): 1 for the machines known. */
static int call_cfa(unsigned machine, uint64_t *reg, uint64_t *off)
{
	switch (machine) {
	case EM_X86_64:
		*reg = 7; /* rsp */
		*off = 8;
		return 1;
	case EM_386:
		*reg = 4; /* esp */
		*off = 4;
		return 1;
	case EM_AARCH64:
		*reg = 31; /* sp; the return address is in x30 */
		*off = 0;
		return 1;
	}
	return 0;
}

/*
 * Whether a CIE's initial instructions (c's bytes) are a call's rules:
 * nothing but the CFA defined as the machine's stack pointer at a call
 * and the return address column saved at an offset (x86-64's "def_cfa
 * rsp+8; offset rip at cfa-8"). Anything else (the return address
 * undefined, as _start's CIE has it; another register saved; an
 * expression) is not.
 */
static int cie_rules_called(struct cur *c, uint64_t ra, unsigned machine)
{
	uint64_t sp = 0, spoff = 0, reg, off;
	int known = call_cfa(machine, &sp, &spoff), n;

	for (n = 0; c->at < c->end; n++) {
		unsigned op = (unsigned)get(c, 1);

		if (n == CIE_OPS_MAX)
			return 0;
		if (op == CFA_NOP)
			continue;
		if ((op & 0xc0) == CFA_OFFSET) {
			uleb(c);
			if ((op & 0x3f) != ra)
				return 0;
			continue;
		}
		switch (op) {
		case CFA_OFFSET_EXTENDED:
			reg = uleb(c);
			uleb(c);
			if (reg != ra)
				return 0;
			break;
		case CFA_OFFSET_EXTENDED_SF:
			reg = uleb(c);
			sleb(c);
			if (reg != ra)
				return 0;
			break;
		case CFA_DEF_CFA:
			reg = uleb(c);
			off = uleb(c);
			if (known && (reg != sp || off != spoff))
				return 0;
			break;
		default: /* an advance (no place in a CIE), undefined, ... */
			return 0;
		}
	}
	return !c->bad;
}

/* Read the CIE at offset off of the section [d, d + size) into ci. */
static void read_cie(const unsigned char *d, size_t size, size_t off,
		     const struct mt_ehframe_where *w, struct cie *ci)
{
	struct cur c = { d, off, size, 0 };
	uint64_t len, ra;
	unsigned version;
	char aug[AUG_MAX + 1];
	size_t k = 0;

	memset(ci, 0, sizeof(*ci));
	ci->off = off;
	ci->enc = PE_ABSPTR;
	len = get(&c, 4);
	if (c.bad || len == 0xffffffff || len > size - c.at)
		return;
	c.end = c.at + (size_t)len;
	if (get(&c, 4) != 0) /* the CIE id */
		return;
	version = (unsigned)get(&c, 1);
	if (c.bad || (version != 1 && version != 3))
		return;
	for (;;) {
		char ch = (char)get(&c, 1);

		if (c.bad || k > AUG_MAX)
			return;
		aug[k++] = ch;
		if (!ch)
			break;
	}
	uleb(&c); /* code alignment factor */
	sleb(&c); /* data alignment factor */
	ra = version == 1 ? get(&c, 1) : uleb(&c);
	if (c.bad)
		return;
	if (aug[0] == 'z') {
		uint64_t alen = uleb(&c), skip;
		struct cur a = c;

		if (c.bad || alen > c.end - c.at)
			return;
		a.end = c.at + (size_t)alen;
		for (k = 1; aug[k]; k++) {
			switch (aug[k]) {
			case 'R':
				ci->enc = (unsigned)get(&a, 1);
				break;
			case 'L': /* the LSDA's encoding */
				get(&a, 1);
				break;
			case 'P': /* the personality routine's encoding, pointer */
				if (format(&a, (unsigned)get(&a, 1), w->ptr_size, &skip))
					return;
				break;
			case 'S': /* a signal frame */
			case 'B': /* arm64: the B key signs return addresses */
			case 'G': /* arm64: MTE-tagged frames */
				break;
			default:
				return;
			}
		}
		if (a.bad)
			return;
		c.at += (size_t)alen;
		ci->z = 1;
	} else if (aug[0]) {
		return; /* "eh" and others: data of unknown size */
	}
	ci->called = cie_rules_called(&c, ra, w->machine);
	ci->ok = 1;
}

/*
 * Whether an FDE's instructions (c's bytes) leave its CIE's rules alone
 * before the first advance: nothing but nops, advances of 0, or none.
 */
static int fde_starts_called(struct cur *c)
{
	while (c->at < c->end) {
		unsigned op = (unsigned)get(c, 1);
		uint64_t delta;

		if (op == CFA_NOP)
			continue;
		if ((op & 0xc0) == CFA_ADVANCE_LOC) {
			if (op & 0x3f)
				return 1;
			continue;
		}
		switch (op) {
		case CFA_SET_LOC:
			return 1;
		case CFA_ADVANCE_LOC1:
			delta = get(c, 1);
			break;
		case CFA_ADVANCE_LOC2:
			delta = get(c, 2);
			break;
		case CFA_ADVANCE_LOC4:
			delta = get(c, 4);
			break;
		case CFA_MIPS_ADVANCE_LOC8:
			delta = get(c, 8);
			break;
		default:
			return 0;
		}
		if (c->bad)
			return 0;
		if (delta)
			return 1;
	}
	return 1;
}

/* The CIE offsets met so far, in increasing order. */
struct cies {
	size_t *v, n, cap;
};

static int cie_seen(const struct cies *s, size_t off)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid] == off)
			return 1;
		if (s->v[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

struct reader {
	const unsigned char *d;
	size_t size;
	const struct mt_ehframe_where *w;
	struct cie cie;     /* the last CIE read */
	struct cies cies;
	struct mt_fdes *out;
};

/* The FDE whose record's body (after its length) is c's bytes, its CIE
 * pointer id read; 0 (added or passed over) or MT_ENOMEM. */
static int read_fde(struct reader *r, struct cur *c, size_t body, uint64_t id)
{
	const struct mt_ehframe_where *w = r->w;
	struct mt_fdes *out = r->out;
	uint64_t start, range, limit = w->ptr_size == 4 ? 0xffffffffu : UINT64_MAX;
	size_t cie;
	struct mt_fde *f;

	/* the pointer counts back from itself to a CIE of this section */
	if (id > body || !cie_seen(&r->cies, cie = body - (size_t)id))
		goto skip;
	if (r->cie.off != cie)
		read_cie(r->d, r->size, cie, w, &r->cie);
	if (!r->cie.ok || pointer(c, r->cie.enc, w, &start) ||
	    format(c, r->cie.enc, w->ptr_size, &range))
		goto skip;
	if (r->cie.z) {
		uint64_t alen = uleb(c);

		if (c->bad || alen > c->end - c->at)
			goto skip;
		c->at += (size_t)alen;
	}
	if (w->ptr_size == 4)
		range &= 0xffffffffu;
	if (!range)
		return 0;
	if (range > limit - start) /* start + range must be an address too */
		goto skip;
	if (mt_grow(&out->v, &out->cap, out->n + 1, sizeof(*out->v)))
		return MT_ENOMEM;
	f = &out->v[out->n++];
	f->start = start;
	f->size = range;
	f->flags = r->cie.called && fde_starts_called(c) ? 0 : MT_FDE_NOT_CALLED;
	return 0;
skip:
	out->skipped++;
	return 0;
}

static int cmp_fde(const void *a, const void *b)
{
	const struct mt_fde *x = a, *y = b;

	MT_CMP_BY(x->start, y->start);
	return MT_CMP(x->size, y->size);
}

void mt_fdes_release(struct mt_fdes *f)
{
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* Every record of the section; 0 or an error. */
static int read_all(struct reader *r, size_t *bad_off)
{
	size_t off = 0;

	while (r->size - off >= 4) {
		struct cur c = { r->d, off, r->size, 0 };
		uint64_t len = get(&c, 4), id;
		int is64 = len == 0xffffffff, err;
		size_t body;

		if (len == 0) { /* a terminator */
			off += 4;
			continue;
		}
		if (is64)
			len = get(&c, 8);
		if (c.bad || len > r->size - c.at) {
			if (bad_off)
				*bad_off = off;
			return MT_ECORRUPT;
		}
		body = c.at;
		off = c.end = body + (size_t)len;
		if (is64)
			continue; /* the 64-bit format: passed over */
		id = get(&c, 4);
		if (c.bad)
			continue; /* shorter than its id */
		if (id == 0) {
			if (mt_grow(&r->cies.v, &r->cies.cap, r->cies.n + 1, sizeof(size_t)))
				return MT_ENOMEM;
			r->cies.v[r->cies.n++] = body - 4;
			continue;
		}
		err = read_fde(r, &c, body, id);
		if (err)
			return err;
	}
	return 0;
}

int mt_ehframe_read(const void *data, size_t size, const struct mt_ehframe_where *w,
		    struct mt_fdes *out, size_t *bad_off)
{
	struct reader r;
	int err;

	if (!out || out->n || out->v || (!data && size) || !w ||
	    (w->ptr_size != 4 && w->ptr_size != 8))
		return MT_EINVAL;
	memset(&r, 0, sizeof(r));
	r.d = data;
	r.size = size;
	r.w = w;
	r.cie.off = SIZE_MAX;
	r.out = out;
	out->skipped = 0;
	err = read_all(&r, bad_off);
	free(r.cies.v);
	if (!err && out->n > INT_MAX)
		err = MT_ERANGE;
	if (err) {
		mt_fdes_release(out);
		return err;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_fde);
	return (int)out->n;
}
