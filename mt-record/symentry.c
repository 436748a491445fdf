/*
 * A symbol table in the cache's bytes (symentry.h).
 *
 * The layout, every field little-endian as this machine's, no padding:
 *   u32 version (SYMENTRY_VERSION)
 *   i32 etype, u64 entry, u8 has_symtab, has_debug_info, is_go,
 *   build_id_len, MT_BUILD_ID_MAX bytes of build id, u32 debuglink_crc,
 *   i32 fde_err, u64 fde_bad_off, u64 fde skipped, i32 debug_err
 *   u64 nsym, nseg, nfde, nnames, u64 debuglink and debug (offsets into
 *   the names, or NONE)
 *   nsym x (u64 addr, u64 size, i32 bind, u64 name offset)
 *   nseg x (u64 vaddr, memsz, offset, filesz, i32 exec)
 *   nfde x (u64 start, u64 size, u32 flags)
 *   nnames bytes: NUL-terminated strings
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "symentry.h"
#include "banned.h"

#define SYMENTRY_VERSION 1
#define NONE UINT64_MAX
#define SYM_BYTES (8 + 8 + 4 + 8)
#define SEG_BYTES (8 * 4 + 4)
#define FDE_BYTES (8 + 8 + 4)

static int put(struct mt_buf *b, const void *p, size_t n)
{
	return mt_buf_add(b, p, n);
}

static int put64(struct mt_buf *b, uint64_t v)
{
	return put(b, &v, sizeof(v));
}

static int put32(struct mt_buf *b, uint32_t v)
{
	return put(b, &v, sizeof(v));
}

static int put8(struct mt_buf *b, uint8_t v)
{
	return put(b, &v, sizeof(v));
}

/* s appended to names (none when NULL): its offset, or NONE. */
static uint64_t name_at(struct mt_buf *names, const char *s, int *err)
{
	uint64_t at = names->len;

	if (!s)
		return NONE;
	if (!*err)
		*err = mt_buf_add(names, s, strlen(s) + 1);
	return at;
}

int symentry_write(const struct mt_symfile *f, struct mt_buf *out)
{
	const struct mt_symtab *t = &f->t;
	uint64_t link, debug, *at = NULL;
	struct mt_buf names;
	size_t i;
	int err = 0;

	mt_buf_init(&names);
	if (t->n && !(at = malloc(t->n * sizeof(*at))))
		return MT_ENOMEM;
	link = name_at(&names, t->debuglink, &err);
	debug = name_at(&names, f->debug, &err);
	for (i = 0; i < t->n && !err; i++)
		at[i] = name_at(&names, t->v[i].name, &err);
	err = err ? err : put32(out, SYMENTRY_VERSION);
	err = err ? err : put32(out, (uint32_t)t->etype);
	err = err ? err : put64(out, t->entry);
	err = err ? err : put8(out, (uint8_t)!!t->has_symtab);
	err = err ? err : put8(out, (uint8_t)!!t->has_debug_info);
	err = err ? err : put8(out, (uint8_t)!!t->is_go);
	err = err ? err : put8(out, (uint8_t)t->build_id_len);
	err = err ? err : put(out, t->build_id, MT_BUILD_ID_MAX);
	err = err ? err : put32(out, t->debuglink_crc);
	err = err ? err : put32(out, (uint32_t)t->fde_err);
	err = err ? err : put64(out, t->fde_bad_off);
	err = err ? err : put64(out, t->fde.skipped);
	err = err ? err : put32(out, (uint32_t)f->debug_err);
	err = err ? err : put64(out, t->n);
	err = err ? err : put64(out, t->nseg);
	err = err ? err : put64(out, t->fde.n);
	err = err ? err : put64(out, names.len);
	err = err ? err : put64(out, link);
	err = err ? err : put64(out, debug);
	for (i = 0; i < t->n && !err; i++) {
		err = put64(out, t->v[i].addr);
		err = err ? err : put64(out, t->v[i].size);
		err = err ? err : put32(out, (uint32_t)t->v[i].bind);
		err = err ? err : put64(out, at[i]);
	}
	for (i = 0; i < t->nseg && !err; i++) {
		err = put64(out, t->seg[i].vaddr);
		err = err ? err : put64(out, t->seg[i].memsz);
		err = err ? err : put64(out, t->seg[i].offset);
		err = err ? err : put64(out, t->seg[i].filesz);
		err = err ? err : put32(out, (uint32_t)t->seg[i].exec);
	}
	for (i = 0; i < t->fde.n && !err; i++) {
		err = put64(out, t->fde.v[i].start);
		err = err ? err : put64(out, t->fde.v[i].size);
		err = err ? err : put32(out, t->fde.v[i].flags);
	}
	if (!err && names.len)
		err = put(out, names.p, names.len);
	mt_buf_release(&names);
	free(at);
	return err;
}

/* ---- reading ---- */

struct cursor {
	const unsigned char *p;
	size_t left;
	int bad;
};

static void get(struct cursor *c, void *out, size_t n)
{
	if (c->bad || c->left < n) {
		c->bad = 1;
		memset(out, 0, n);
		return;
	}
	memcpy(out, c->p, n);
	c->p += n;
	c->left -= n;
}

static uint64_t get64(struct cursor *c)
{
	uint64_t v;

	get(c, &v, sizeof(v));
	return v;
}

static uint32_t get32(struct cursor *c)
{
	uint32_t v;

	get(c, &v, sizeof(v));
	return v;
}

static uint8_t get8(struct cursor *c)
{
	uint8_t v;

	get(c, &v, sizeof(v));
	return v;
}

/* The string at off of the names (n bytes): NULL unless it ends there. */
static const char *name_of(const char *names, uint64_t n, uint64_t off)
{
	if (off >= n || !memchr(names + off, '\0', (size_t)(n - off)))
		return NULL;
	return names + off;
}

/* Whether a sorts before b as the table keeps them. */
static int sym_before(const struct mt_sym *a, const struct mt_sym *b)
{
	if (a->addr != b->addr)
		return a->addr < b->addr;
	if (a->size != b->size)
		return a->size < b->size;
	return strcmp(a->name, b->name) < 0;
}

/* Allocates n elements of each bytes into *out (n may be 0): 0, or -1. */
static int alloc_n(void *out, uint64_t n, size_t each)
{
	void *p;

	if (n > SIZE_MAX / each / 2)
		return -1;
	p = calloc(n ? (size_t)n : 1, each);
	memcpy(out, &p, sizeof(p));
	return p ? 0 : -1;
}

static void release(struct mt_symfile *f)
{
	mt_symtab_release(&f->t);
	free(f->debug);
	f->debug = NULL;
	f->debug_err = 0;
	f->dwfd = -1;
}

int symentry_read(const void *p, size_t n, struct mt_symfile *f)
{
	struct cursor c = { p, n, 0 };
	struct mt_symtab *t = &f->t;
	uint64_t nsym, nseg, nfde, nnames, link, debug, i;
	const unsigned char *syms, *segs, *fdes;
	const char *names, *s;
	int err = MT_ECORRUPT;

	memset(f, 0, sizeof(*f));
	f->dwfd = -1;
	if (get32(&c) != SYMENTRY_VERSION)
		return MT_ECORRUPT;
	t->etype = (int)get32(&c);
	t->entry = get64(&c);
	t->has_symtab = get8(&c);
	t->has_debug_info = get8(&c);
	t->is_go = get8(&c);
	t->build_id_len = get8(&c);
	get(&c, t->build_id, MT_BUILD_ID_MAX);
	t->debuglink_crc = get32(&c);
	t->fde_err = (int)get32(&c);
	t->fde_bad_off = (size_t)get64(&c);
	t->fde.skipped = (size_t)get64(&c);
	f->debug_err = (int)get32(&c);
	nsym = get64(&c);
	nseg = get64(&c);
	nfde = get64(&c);
	nnames = get64(&c);
	link = get64(&c);
	debug = get64(&c);
	if (c.bad || t->has_symtab > 1 || t->has_debug_info > 1 || t->is_go > 1 ||
	    t->build_id_len > MT_BUILD_ID_MAX)
		return MT_ECORRUPT;
	/* the arrays and the names: exactly what is left */
	if (nsym > c.left / SYM_BYTES || nseg > c.left / SEG_BYTES || nfde > c.left / FDE_BYTES ||
	    nsym * SYM_BYTES + nseg * SEG_BYTES > c.left - nfde * FDE_BYTES ||
	    nnames != c.left - nsym * SYM_BYTES - nseg * SEG_BYTES - nfde * FDE_BYTES)
		return MT_ECORRUPT;
	syms = c.p;
	segs = syms + nsym * SYM_BYTES;
	fdes = segs + nseg * SEG_BYTES;
	names = (const char *)(fdes + nfde * FDE_BYTES);
	if ((link != NONE && !name_of(names, nnames, link)) ||
	    (debug != NONE && !name_of(names, nnames, debug)))
		return MT_ECORRUPT;
	err = MT_ENOMEM;
	if ((link != NONE && !(t->debuglink = strdup(names + link))) ||
	    (debug != NONE && !(f->debug = strdup(names + debug))) ||
	    alloc_n(&t->v, nsym, sizeof(*t->v)) || alloc_n(&t->seg, nseg, sizeof(*t->seg)) ||
	    alloc_n(&t->fde.v, nfde, sizeof(*t->fde.v)))
		goto fail;
	mt_prefault(t->v, nsym * sizeof(*t->v)); /* each written next */
	mt_prefault(t->fde.v, nfde * sizeof(*t->fde.v));
	t->cap = (size_t)nsym;
	t->fde.cap = (size_t)nfde;
	t->nseg = (size_t)nseg;
	c.p = syms;
	c.left = (size_t)(nsym * SYM_BYTES + nseg * SEG_BYTES + nfde * FDE_BYTES);
	for (i = 0; i < nsym; i++) {
		struct mt_sym *y = &t->v[i];
		uint64_t off;

		y->addr = get64(&c);
		y->size = get64(&c);
		y->bind = (int)get32(&c);
		off = get64(&c);
		err = MT_ECORRUPT;
		if (y->bind < MT_SYM_LOCAL || y->bind > MT_SYM_FDE_PART ||
		    !(s = name_of(names, nnames, off)) || !*s)
			goto fail;
		err = MT_ENOMEM;
		if (!(y->name = strdup(s)))
			goto fail;
		t->n = (size_t)i + 1;
		err = MT_ECORRUPT;
		if (i && !sym_before(&t->v[i - 1], y))
			goto fail; /* out of order, or twice */
	}
	for (i = 0; i < nseg; i++) {
		t->seg[i].vaddr = get64(&c);
		t->seg[i].memsz = get64(&c);
		t->seg[i].offset = get64(&c);
		t->seg[i].filesz = get64(&c);
		t->seg[i].exec = (int)get32(&c);
	}
	for (i = 0; i < nfde; i++) {
		struct mt_fde *d = &t->fde.v[i];

		d->start = get64(&c);
		d->size = get64(&c);
		d->flags = get32(&c);
		err = MT_ECORRUPT;
		if (!d->size || d->start + d->size < d->start ||
		    (i && d->start < d[-1].start + d[-1].size))
			goto fail;
		t->fde.n = (size_t)i + 1;
	}
	if (c.bad || c.left)
		goto fail;
	return 0;
fail:
	release(f);
	return err;
}
