/*
 * Unit tests for mt_ehframe_read() (common/ehframe.h): .eh_frame sections
 * written here byte by byte, as GCC and GAS write them (a "zR" CIE, FDEs
 * with pcrel|sdata4 pointers) and as they must not be: each pointer
 * encoding, the augmentations, the rules that tell a called function from
 * a part entered by a jump, lengths and pointers that lead outside.
 */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>

#include "ehframe.h"
#include "err.h"
#include "unit.h"
#include "banned.h"

#define SEC 0x2000 /* where the sections here are loaded */

/* A section being written. */
struct eb {
	unsigned char b[4096];
	size_t n;
};

static void u8(struct eb *e, unsigned v)
{
	e->b[e->n++] = (unsigned char)v;
}

static void un(struct eb *e, uint64_t v, size_t bytes)
{
	size_t i;

	for (i = 0; i < bytes; i++)
		u8(e, i < 8 ? (unsigned)(v >> (8 * i)) & 0xff : 0);
}

static void bytes(struct eb *e, const void *p, size_t len)
{
	if (len)
		memcpy(e->b + e->n, p, len);
	e->n += len;
}

/* A record's length, written once its body is */
static size_t begin(struct eb *e)
{
	size_t at = e->n;

	un(e, 0, 4);
	return at;
}

static void end(struct eb *e, size_t at)
{
	size_t len = e->n - at - 4, i;

	for (i = 0; i < 4; i++)
		e->b[at + i] = (unsigned char)(len >> (8 * i));
}

/* def_cfa rsp+8; offset rip at cfa-8: x86-64's rules at a call */
static const unsigned char X86_CALL[] = { 0x0c, 7, 8, 0x90, 1 };

/* A CIE, version 1, code alignment 1, data alignment -8, return address
 * column 16, aug and its data (after 'z', with its length), initial
 * instructions ins; its offset. */
static size_t cie(struct eb *e, const char *aug, const unsigned char *augdata, size_t alen,
		  const unsigned char *ins, size_t ilen)
{
	size_t at = begin(e);

	un(e, 0, 4); /* the CIE id */
	u8(e, 1);
	bytes(e, aug, strlen(aug) + 1);
	u8(e, 1);
	u8(e, 0x78);
	u8(e, 16);
	if (aug[0] == 'z') {
		u8(e, (unsigned)alen);
		bytes(e, augdata, alen);
	}
	bytes(e, ins, ilen);
	end(e, at);
	return at;
}

/* GCC's CIE: "zR", pcrel|sdata4 */
static size_t gcc_cie(struct eb *e)
{
	static const unsigned char r[] = { 0x1b };

	return cie(e, "zR", r, 1, X86_CALL, sizeof(X86_CALL));
}

/* An FDE of the CIE at cie_at whose fields after the CIE pointer are
 * given (pointers, augmentation, instructions); its offset. */
static size_t fde_raw(struct eb *e, size_t cie_at, const void *rest, size_t len)
{
	size_t at = begin(e);

	un(e, e->n - cie_at, 4);
	bytes(e, rest, len);
	end(e, at);
	return at;
}

/* An FDE of a "zR" pcrel|sdata4 CIE: start, size, instructions. */
static size_t fde(struct eb *e, size_t cie_at, uint64_t start, uint32_t size,
		  const unsigned char *ins, size_t ilen)
{
	size_t at = begin(e);

	un(e, e->n - cie_at, 4);
	un(e, start - (SEC + e->n), 4); /* relative to the field itself */
	un(e, size, 4);
	u8(e, 0); /* no augmentation data */
	bytes(e, ins, ilen);
	end(e, at);
	return at;
}

static const struct mt_ehframe_where X86 = { SEC, 0, 0, 8, EM_X86_64 };

static int read_x(const struct eb *e, const struct mt_ehframe_where *w, struct mt_fdes *f,
		  size_t *bad)
{
	*f = (struct mt_fdes)MT_FDES_INIT;
	return mt_ehframe_read(e->b, e->n, w, f, bad);
}

/* GCC's layout: a function, one entered with its caller's frame (a .cold
 * part: rules changed before any advance), an empty one, a terminator;
 * sorted by address. */
static void test_gcc(void)
{
	static const unsigned char called[] = { 0x41, 0x0e, 16, 0x86, 2, 0, 0 };
	static const unsigned char cold[] = { 0x0e, 80, 0x83, 6, 0, 0 };
	struct eb e = { { 0 }, 0 };
	struct mt_fdes f;
	size_t c = gcc_cie(&e), bad = 7;

	fde(&e, c, 0x1200, 0x40, called, sizeof(called));
	fde(&e, c, 0x1100, 0x13, cold, sizeof(cold));
	fde(&e, c, 0x1300, 0, NULL, 0); /* empty: passed over, not counted */
	fde(&e, c, 0x1400, 8, NULL, 0);
	un(&e, 0, 4);
	CHECK_EQ(read_x(&e, &X86, &f, &bad), 3);
	CHECK_EQ(f.n, 3);
	CHECK_EQ(f.skipped, 0);
	CHECK_EQ(bad, 7);
	CHECK_EQ(f.v[0].start, 0x1100);
	CHECK_EQ(f.v[0].size, 0x13);
	CHECK_EQ(f.v[0].flags, MT_FDE_NOT_CALLED);
	CHECK_EQ(f.v[1].start, 0x1200);
	CHECK_EQ(f.v[1].size, 0x40);
	CHECK_EQ(f.v[1].flags, 0);
	CHECK_EQ(f.v[2].start, 0x1400);
	CHECK_EQ(f.v[2].flags, 0);
	mt_fdes_release(&f);
	CHECK(f.v == NULL && f.n == 0);
}

/* Whether a called function's rules are a call's: the CIE's (the return
 * address undefined: _start; the CFA elsewhere; another register saved)
 * and the FDE's before its first advance (of 0 or more, of each width). */
static unsigned flags_of(const unsigned char *cie_ins, size_t clen, const unsigned char *ins,
			 size_t ilen, unsigned machine)
{
	static const unsigned char r[] = { 0x1b };
	struct mt_ehframe_where w = X86;
	struct eb e = { { 0 }, 0 };
	struct mt_fdes f;
	size_t c = cie(&e, "zR", r, 1, cie_ins, clen), bad;
	unsigned flags = 99;

	w.machine = machine;
	fde(&e, c, 0x1000, 0x10, ins, ilen);
	if (read_x(&e, &w, &f, &bad) == 1)
		flags = f.v[0].flags;
	mt_fdes_release(&f);
	return flags;
}

static void test_called(void)
{
	static const unsigned char undef[] = { 0x0c, 7, 8, 0x90, 1, 0x07, 16 };
	static const unsigned char cfa16[] = { 0x0c, 7, 16, 0x90, 1 };
	static const unsigned char rbx[] = { 0x0c, 7, 8, 0x90, 1, 0x83, 2 };
	static const unsigned char ext[] = { 0x0c, 7, 8, 0x05, 16, 1 };
	static const unsigned char arm[] = { 0x0c, 31, 0 };
	static const unsigned char adv0[] = { 0x40, 0x0e, 16 };
	static const unsigned char adv1[] = { 0x02, 0, 0x02, 4, 0x0e, 16 };
	static const unsigned char adv2[] = { 0x03, 1, 0, 0x0e, 16 };
	static const unsigned char adv4[] = { 0x04, 0, 0, 1, 0, 0x0e, 16 };
	static const unsigned char short4[] = { 0x04, 1, 0 };
	static const unsigned char setloc[] = { 0x01 };
	static const unsigned char nops[] = { 0, 0, 0, 0x41 };

	CHECK_EQ(flags_of(X86_CALL, sizeof(X86_CALL), NULL, 0, EM_X86_64), 0);
	CHECK_EQ(flags_of(undef, sizeof(undef), NULL, 0, EM_X86_64), MT_FDE_NOT_CALLED);
	CHECK_EQ(flags_of(cfa16, sizeof(cfa16), NULL, 0, EM_X86_64), MT_FDE_NOT_CALLED);
	CHECK_EQ(flags_of(cfa16, sizeof(cfa16), NULL, 0, EM_PPC64), 0); /* not checked */
	CHECK_EQ(flags_of(rbx, sizeof(rbx), NULL, 0, EM_X86_64), MT_FDE_NOT_CALLED);
	CHECK_EQ(flags_of(ext, sizeof(ext), NULL, 0, EM_X86_64), 0);
	CHECK_EQ(flags_of(arm, sizeof(arm), NULL, 0, EM_AARCH64), 0);
	CHECK_EQ(flags_of(arm, sizeof(arm), NULL, 0, EM_X86_64), MT_FDE_NOT_CALLED);
	CHECK_EQ(flags_of(X86_CALL, sizeof(X86_CALL), adv0, sizeof(adv0), EM_X86_64),
		 MT_FDE_NOT_CALLED);
	CHECK_EQ(flags_of(X86_CALL, sizeof(X86_CALL), adv1, sizeof(adv1), EM_X86_64), 0);
	CHECK_EQ(flags_of(X86_CALL, sizeof(X86_CALL), adv2, sizeof(adv2), EM_X86_64), 0);
	CHECK_EQ(flags_of(X86_CALL, sizeof(X86_CALL), adv4, sizeof(adv4), EM_X86_64), 0);
	CHECK_EQ(flags_of(X86_CALL, sizeof(X86_CALL), short4, sizeof(short4), EM_X86_64),
		 MT_FDE_NOT_CALLED);
	CHECK_EQ(flags_of(X86_CALL, sizeof(X86_CALL), setloc, sizeof(setloc), EM_X86_64), 0);
	CHECK_EQ(flags_of(X86_CALL, sizeof(X86_CALL), nops, sizeof(nops), EM_X86_64), 0);
}

/* Each pointer encoding read: absolute (no augmentation: absptr),
 * udata2/4/8, sdata2/8, uleb128, sleb128, pcrel, datarel; and those not:
 * textrel, funcrel, aligned, indirect, omit, an unknown format, datarel
 * without a base. */
static uint64_t field_at; /* the address of one()'s initial location */

static int one(unsigned enc, const void *ptrs, size_t len, const struct mt_ehframe_where *w,
	       uint64_t *start, uint64_t *size)
{
	struct eb e = { { 0 }, 0 };
	unsigned char r[1] = { (unsigned char)enc }, rest[64];
	struct mt_fdes f;
	size_t c = cie(&e, "zR", r, 1, X86_CALL, sizeof(X86_CALL)), bad;
	int n;

	memcpy(rest, ptrs, len);
	rest[len] = 0; /* augmentation data length */
	field_at = SEC + e.n + 8; /* after the length and the CIE pointer */
	fde_raw(&e, c, rest, len + 1);
	n = read_x(&e, w, &f, &bad);
	if (n == 1) {
		*start = f.v[0].start;
		*size = f.v[0].size;
	} else if (n == 0) {
		n = f.skipped ? -1 : 0;
	}
	mt_fdes_release(&f);
	return n;
}

static void test_encodings(void)
{
	static const unsigned char u2[] = { 0x34, 0x12, 0x10, 0 };
	static const unsigned char u4[] = { 0x78, 0x56, 0x34, 0x12, 0x20, 0, 0, 0 };
	static const unsigned char u8s[] = { 1, 0, 0, 0, 0, 0, 0, 0x80, 0x30, 0, 0, 0, 0, 0, 0, 0 };
	static const unsigned char s2[] = { 0xfe, 0xff, 0x10, 0 }; /* -2 */
	static const unsigned char leb[] = { 0xe5, 0x8e, 0x26, 0x10 }; /* 624485, 16 */
	static const unsigned char sleb[] = { 0x7f, 0x10 }; /* -1, 16 */
	static const unsigned char d4[] = { 0x00, 0x01, 0, 0, 0x10, 0, 0, 0 };
	struct mt_ehframe_where w = X86;
	uint64_t start = 0, size = 0;

	CHECK_EQ(one(0x02, u2, sizeof(u2), &w, &start, &size), 1);
	CHECK_EQ(start, 0x1234);
	CHECK_EQ(size, 0x10);
	CHECK_EQ(one(0x03, u4, sizeof(u4), &w, &start, &size), 1);
	CHECK_EQ(start, 0x12345678);
	CHECK_EQ(size, 0x20);
	CHECK_EQ(one(0x04, u8s, sizeof(u8s), &w, &start, &size), 1);
	CHECK_EQ(start, 0x8000000000000001ull);
	CHECK_EQ(size, 0x30);
	CHECK_EQ(one(0x0c, u8s, sizeof(u8s), &w, &start, &size), 1);
	CHECK_EQ(start, 0x8000000000000001ull);
	CHECK_EQ(one(0x00, u8s, sizeof(u8s), &w, &start, &size), 1); /* absptr, 8 */
	CHECK_EQ(start, 0x8000000000000001ull);
	/* pcrel: from the field's own address */
	CHECK_EQ(one(0x1a, s2, sizeof(s2), &w, &start, &size), 1);
	CHECK_EQ(start, field_at - 2);
	CHECK_EQ(one(0x01, leb, sizeof(leb), &w, &start, &size), 1);
	CHECK_EQ(start, 624485);
	CHECK_EQ(size, 16);
	CHECK_EQ(one(0x19, sleb, sizeof(sleb), &w, &start, &size), 1); /* pcrel */
	CHECK_EQ(start, field_at - 1);
	CHECK_EQ(size, 16);
	/* datarel: from the base given, or not read */
	CHECK_EQ(one(0x33, d4, sizeof(d4), &w, &start, &size), -1);
	w.dbase = 0x9000;
	w.has_dbase = 1;
	CHECK_EQ(one(0x33, d4, sizeof(d4), &w, &start, &size), 1);
	CHECK_EQ(start, 0x9100);
	w = X86;
	CHECK_EQ(one(0x23, d4, sizeof(d4), &w, &start, &size), -1); /* textrel */
	CHECK_EQ(one(0x43, d4, sizeof(d4), &w, &start, &size), -1); /* funcrel */
	CHECK_EQ(one(0x53, d4, sizeof(d4), &w, &start, &size), -1); /* aligned */
	CHECK_EQ(one(0x93, d4, sizeof(d4), &w, &start, &size), -1); /* indirect */
	CHECK_EQ(one(0xff, d4, sizeof(d4), &w, &start, &size), -1); /* omit */
	CHECK_EQ(one(0x05, d4, sizeof(d4), &w, &start, &size), -1); /* no format 5 */
	/* a field past the end of its record */
	CHECK_EQ(one(0x04, u4, sizeof(u4), &w, &start, &size), -1);
	/* 4-byte pointers: absptr is 4 bytes, addresses wrap at 2^32 */
	w.ptr_size = 4;
	CHECK_EQ(one(0x00, u4, sizeof(u4), &w, &start, &size), 1);
	CHECK_EQ(start, 0x12345678);
	CHECK_EQ(size, 0x20);
	{
		static const unsigned char wrap[] = { 0xf0, 0xff, 0xff, 0xff, 0x20, 0, 0, 0 };
		static const unsigned char top[] = { 0xf0, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0 };
		static const unsigned char end32[] = { 0xf0, 0xff, 0xff, 0xff, 0x10, 0, 0, 0 };

		CHECK_EQ(one(0x03, wrap, sizeof(wrap), &w, &start, &size), -1);
		CHECK_EQ(one(0x03, top, sizeof(top), &w, &start, &size), 1);
		CHECK_EQ(one(0x03, end32, sizeof(end32), &w, &start, &size), -1);
	}
	w = X86;
	{
		static const unsigned char wrap8[] = { 0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
						       0x20, 0, 0, 0, 0, 0, 0, 0 };

		CHECK_EQ(one(0x04, wrap8, sizeof(wrap8), &w, &start, &size), -1);
	}
	/* a LEB128 of 11 bytes */
	{
		static const unsigned char long_leb[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
							  0x80, 0x80, 0x80, 0x80, 0x01, 0x10 };

		CHECK_EQ(one(0x01, long_leb, sizeof(long_leb), &w, &start, &size), -1);
	}
}

/* The augmentations: 'P' (a personality pointer of its own encoding),
 * 'L', 'S', 'B', 'G' read; FDEs carry their own augmentation data; no
 * 'z' and no augmentation: absptr, no data; others ("eh", unknown
 * letters), a version other than 1 and 3: the FDEs passed over. */
static void test_augmentations(void)
{
	static const unsigned char plr[] = { 0x9b, 0x10, 0, 0, 0, 0x1b, 0x1b };
	static const unsigned char rs[] = { 0x1b };
	struct eb e = { { 0 }, 0 };
	struct mt_fdes f;
	size_t c, bad;
	unsigned char rest[32];

	/* zPLR: personality (indirect pcrel sdata4), LSDA pcrel sdata4, FDE
	 * pcrel sdata4; the FDE's LSDA pointer in its 4 bytes of data */
	c = cie(&e, "zPLR", plr, sizeof(plr), X86_CALL, sizeof(X86_CALL));
	{
		size_t at = begin(&e);

		un(&e, e.n - c, 4);
		un(&e, 0x1000 - (SEC + e.n), 4);
		un(&e, 0x50, 4);
		u8(&e, 4);
		un(&e, 0x1234, 4);
		u8(&e, 0x41);
		end(&e, at);
	}
	c = cie(&e, "zRS", rs, 1, X86_CALL, sizeof(X86_CALL));
	fde(&e, c, 0x2000, 0x10, NULL, 0);
	c = cie(&e, "zRBG", rs, 1, X86_CALL, sizeof(X86_CALL));
	fde(&e, c, 0x3000, 0x10, NULL, 0);
	c = cie(&e, "", NULL, 0, X86_CALL, sizeof(X86_CALL)); /* absptr */
	memset(rest, 0, sizeof(rest));
	rest[0] = 0x00;
	rest[1] = 0x40;
	rest[8] = 0x08;
	fde_raw(&e, c, rest, 16);
	c = cie(&e, "eh", NULL, 0, X86_CALL, sizeof(X86_CALL));
	fde_raw(&e, c, rest, 16);
	c = cie(&e, "zRX", rs, 1, X86_CALL, sizeof(X86_CALL));
	fde(&e, c, 0x5000, 0x10, NULL, 0);
	c = cie(&e, "zRzzzzzzzzzzzzzzzzzzzzzzzz", rs, 1, X86_CALL, sizeof(X86_CALL));
	fde(&e, c, 0x6000, 0x10, NULL, 0);
	c = cie(&e, "zR", rs, 1, X86_CALL, sizeof(X86_CALL));
	e.b[c + 8] = 2; /* version 2 */
	fde(&e, c, 0x7000, 0x10, NULL, 0);
	CHECK_EQ(read_x(&e, &X86, &f, &bad), 4);
	CHECK_EQ(f.skipped, 4);
	if (f.n == 4) {
		CHECK_EQ(f.v[0].start, 0x1000);
		CHECK_EQ(f.v[0].size, 0x50);
		CHECK_EQ(f.v[1].start, 0x2000);
		CHECK_EQ(f.v[2].start, 0x3000);
		CHECK_EQ(f.v[3].start, 0x4000);
		CHECK_EQ(f.v[3].size, 8);
	}
	mt_fdes_release(&f);
}

/* A length past the end: MT_ECORRUPT at that record, nothing kept; a CIE
 * pointer to no CIE (an FDE, before the section, past the record itself)
 * passes that FDE over; records of the 64-bit format are passed over;
 * bytes after the last record that hold no length are left. */
static void test_bounds(void)
{
	struct eb e = { { 0 }, 0 };
	struct mt_fdes f;
	size_t c = gcc_cie(&e), first, bad = 0, at;

	first = fde(&e, c, 0x1000, 0x10, NULL, 0);
	fde(&e, first, 0x2000, 0x10, NULL, 0); /* its "CIE" is an FDE */
	at = fde(&e, c, 0x3000, 0x10, NULL, 0);
	e.b[at + 4] = 0xff; /* a pointer back past the start */
	e.b[at + 7] = 0x7f;
	at = fde(&e, c, 0x4000, 0x10, NULL, 0);
	e.b[at + 4] = 0; /* a pointer to itself: id 0 is a CIE */
	e.b[at + 5] = 0;
	e.b[at + 6] = 0;
	e.b[at + 7] = 0;
	/* a 64-bit record, two bytes too few for a length */
	un(&e, 0xffffffff, 4);
	un(&e, 12, 8);
	un(&e, 0, 12);
	at = e.n;
	u8(&e, 0);
	u8(&e, 0);
	CHECK_EQ(read_x(&e, &X86, &f, &bad), 1);
	CHECK_EQ(f.skipped, 2);
	mt_fdes_release(&f);

	e.n = at;
	un(&e, 100, 4);
	CHECK_EQ(read_x(&e, &X86, &f, &bad), MT_ECORRUPT);
	CHECK_EQ(bad, at);
	CHECK(f.v == NULL && f.n == 0);
	e.n = at;
	un(&e, 0xffffffff, 4);
	un(&e, 0x100000000ull, 8);
	CHECK_EQ(read_x(&e, &X86, &f, &bad), MT_ECORRUPT);
	CHECK_EQ(bad, at);
	e.n = at + 3;
	CHECK_EQ(read_x(&e, &X86, &f, &bad), 1);
	mt_fdes_release(&f);
	/* a record shorter than its id, the CIE's length cut */
	e.n = at;
	un(&e, 2, 4);
	un(&e, 0, 2);
	CHECK_EQ(read_x(&e, &X86, &f, &bad), 1);
	mt_fdes_release(&f);
	e.b[c] = 3; /* the CIE: 3 bytes, shorter than its id */
	CHECK_EQ(read_x(&e, &X86, &f, &bad), MT_ECORRUPT);
	/* an empty section */
	CHECK_EQ(mt_ehframe_read(NULL, 0, &X86, &f, &bad), 0);
	CHECK(f.v == NULL);
}

static void test_null(void)
{
	struct mt_fdes f = MT_FDES_INIT, busy = MT_FDES_INIT;
	struct mt_ehframe_where w = X86;
	unsigned char b[8] = { 0 };

	CHECK_EQ(mt_ehframe_read(b, sizeof(b), &X86, NULL, NULL), MT_EINVAL);
	CHECK_EQ(mt_ehframe_read(NULL, 8, &X86, &f, NULL), MT_EINVAL);
	CHECK_EQ(mt_ehframe_read(b, sizeof(b), NULL, &f, NULL), MT_EINVAL);
	w.ptr_size = 2;
	CHECK_EQ(mt_ehframe_read(b, sizeof(b), &w, &f, NULL), MT_EINVAL);
	busy.n = 1;
	CHECK_EQ(mt_ehframe_read(b, sizeof(b), &X86, &busy, NULL), MT_EINVAL);
	CHECK_EQ(mt_ehframe_read(b, sizeof(b), &X86, &f, NULL), 0); /* two terminators */
	mt_fdes_release(&f);
}

int main(void)
{
	RUN(test_gcc);
	RUN(test_called);
	RUN(test_encodings);
	RUN(test_augmentations);
	RUN(test_bounds);
	RUN(test_null);
	return unit_done();
}
