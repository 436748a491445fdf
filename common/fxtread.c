#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fxtread.h"
#include "wire.h"
#include "banned.h"

/* Inline strings of one record: at most its bytes, plus a NUL for each of
 * at most 2 + 2 * 15 strings. */
#define SCRATCH_SIZE (MT_FXT_MAX_WORDS * 8 + 64)

/* read_body()'s answer when an allocation failed (a fatal error) */
static const char oom[] = "out of memory";

/*
 * One hash table holds the string tables, the thread tables and the map
 * from provider id to provider, keyed by kind, provider generation and
 * index: memory grows with the registrations in the input only, whatever
 * the indexes and however many providers it declares.
 */
enum { K_STR = 1, K_THREAD = 2, K_PROV = 3 };

struct mt_fxt_ent {
	uint64_t key; /* 0: empty slot */
	char *p;      /* string copy */
	uint64_t a;   /* string length, pid, or provider index */
	uint64_t b;   /* tid */
};

static uint64_t ent_key(unsigned kind, uint64_t gen, uint64_t idx)
{
	return (uint64_t)kind << 60 | gen << 16 | idx;
}

static size_t ent_slot(uint64_t key, size_t nslots)
{
	key ^= key >> 31;
	key *= 0x7fb5d329728ea185ull;
	key ^= key >> 27;
	key *= 0x81dadef4bc2dd44dull;
	key ^= key >> 33;
	return (size_t)key & (nslots - 1);
}

static struct mt_fxt_ent *tab_find(const struct mt_fxt_reader *r,
				   uint64_t key)
{
	size_t i;

	if (!r->tabslots)
		return NULL;
	for (i = ent_slot(key, r->tabslots); r->tab[i].key;
	     i = (i + 1) & (r->tabslots - 1))
		if (r->tab[i].key == key)
			return &r->tab[i];
	return NULL;
}

/* The entry of key, added (zeroed) if absent; NULL when out of memory. */
static struct mt_fxt_ent *tab_put(struct mt_fxt_reader *r, uint64_t key)
{
	struct mt_fxt_ent *e = tab_find(r, key);
	size_t i;

	if (e)
		return e;
	if ((r->ntab + 1) * 2 > r->tabslots) {
		size_t n = r->tabslots ? r->tabslots * 2 : 256;
		struct mt_fxt_ent *t = calloc(n, sizeof(*t));

		if (!t)
			return NULL;
		for (i = 0; i < r->tabslots; i++) {
			size_t j;

			if (!r->tab[i].key)
				continue;
			for (j = ent_slot(r->tab[i].key, n); t[j].key;
			     j = (j + 1) & (n - 1))
				;
			t[j] = r->tab[i];
		}
		free(r->tab);
		r->tab = t;
		r->tabslots = n;
	}
	for (i = ent_slot(key, r->tabslots); r->tab[i].key;
	     i = (i + 1) & (r->tabslots - 1))
		;
	r->tab[i].key = key;
	r->ntab++;
	return &r->tab[i];
}

/* ---- reading ---- */

static uint64_t bits(uint64_t w, unsigned lo, unsigned hi)
{
	unsigned n = hi - lo + 1;

	return n >= 64 ? w : (w >> lo) & ((1ull << n) - 1);
}

void mt_fxt_reader_init_mem(struct mt_fxt_reader *r, const void *data,
			    size_t len)
{
	memset(r, 0, sizeof(*r));
	r->data = data;
	r->len = data ? len : 0;
	r->cur = -1;
}

void mt_fxt_reader_feed(struct mt_fxt_reader *r, const void *data, size_t len)
{
	r->base += r->pos;
	r->data = data;
	r->len = len;
	r->pos = 0;
}

int mt_fxt_reader_init_fn(struct mt_fxt_reader *r, mt_read_fn fn, void *ctx,
			  const void *prefix, size_t prefix_len)
{
	mt_fxt_reader_init_mem(r, NULL, 0);
	r->read = fn;
	r->ctx = ctx;
	r->rec = malloc(MT_FXT_MAX_WORDS * 8);
	r->pre = malloc(prefix_len ? prefix_len : 1);
	if (!r->rec || !r->pre) {
		mt_fxt_reader_release(r);
		return MT_ENOMEM;
	}
	if (prefix_len)
		memcpy(r->pre, prefix, prefix_len);
	r->pre_len = prefix_len;
	return 0;
}

void mt_fxt_reader_release(struct mt_fxt_reader *r)
{
	size_t i;

	for (i = 0; i < r->tabslots; i++)
		free(r->tab[i].p);
	free(r->tab);
	for (i = 0; i < r->nprovs; i++)
		free(r->provs[i].name);
	free(r->provs);
	free(r->scratch);
	free(r->rec);
	free(r->pre);
	mt_fxt_reader_init_mem(r, NULL, 0);
}

/* Up to n bytes from the prefix, then the source (fewer only at the end
 * of the input), or the source's error. */
static ssize_t src_read(struct mt_fxt_reader *r, unsigned char *p, size_t n)
{
	size_t got = 0;

	while (got < n && r->pre_pos < r->pre_len)
		p[got++] = r->pre[r->pre_pos++];
	while (got < n) {
		ssize_t k = r->read(r->ctx, p + got, n - got);

		if (k < 0)
			return k;
		if (!k)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/* The next record from the source into r->rec, fed to the reader: whole,
 * or as much of it as the input held (the framing then finds the fault).
 * 0, or the source's error. */
static int pull(struct mt_fxt_reader *r)
{
	ssize_t got = src_read(r, r->rec, 8), rest;
	size_t size;

	if (got < 0)
		return (int)got;
	size = got == 8 ? (size_t)bits(mt_get64(r->rec), 4, 15) * 8 : 0;
	if (size > 8) {
		rest = src_read(r, r->rec + 8, size - 8);
		if (rest < 0)
			return (int)rest;
		got += rest;
	}
	mt_fxt_reader_feed(r, r->rec, (size_t)got);
	return 0;
}

/* Provider info (and provider 0 at the start, as Perfetto's constructor):
 * a fresh provider with empty tables and 1e9 ticks/s becomes current. */
static int prov_register(struct mt_fxt_reader *r, uint32_t id,
			 const char *name, size_t len)
{
	struct mt_fxt_provider *p;
	struct mt_fxt_ent *e;
	char *copy;

	if (r->nprovs == r->provcap) {
		size_t n = r->provcap ? r->provcap * 2 : 4;

		p = realloc(r->provs, n * sizeof(*p));
		if (!p)
			return MT_ENOMEM;
		r->provs = p;
		r->provcap = n;
	}
	copy = malloc(len + 1);
	if (!copy)
		return MT_ENOMEM;
	e = tab_put(r, ent_key(K_PROV, 0, id));
	if (!e) {
		free(copy);
		return MT_ENOMEM;
	}
	if (len)
		memcpy(copy, name, len);
	copy[len] = '\0';
	p = &r->provs[r->nprovs];
	p->id = id;
	p->name = copy;
	p->name_len = len;
	p->ticks_per_second = MT_FXT_TICKS_NS;
	p->has_init = 0;
	p->gen = (uint32_t)r->nprovs;
	e->a = r->nprovs;
	r->cur = (long)r->nprovs++;
	return 0;
}

/* A record being decoded: words [pos, end) are left. */
struct cur {
	const unsigned char *p;
	size_t end, pos;
};

static int cur_word(struct cur *c, uint64_t *w)
{
	if (c->pos >= c->end)
		return -1;
	*w = mt_get64(c->p + c->pos * 8);
	c->pos++;
	return 0;
}

/* An inline stream of len bytes, copied NUL-terminated to the scratch. */
static int cur_stream(struct mt_fxt_reader *r, struct cur *c, uint64_t len,
		      struct mt_fxt_str *s)
{
	uint64_t words = len / 8 + (len % 8 != 0);
	char *d;

	if (words > c->end - c->pos || len + 1 > SCRATCH_SIZE - r->scratch_used)
		return -1;
	d = r->scratch + r->scratch_used;
	if (len)
		memcpy(d, c->p + c->pos * 8, (size_t)len);
	d[len] = '\0';
	r->scratch_used += (size_t)len + 1;
	s->p = d;
	s->len = (size_t)len;
	c->pos += (size_t)words;
	return 0;
}

static uint64_t cur_gen(const struct mt_fxt_reader *r)
{
	return r->cur >= 0 ? r->provs[r->cur].gen : 0;
}

/* A string ref: -1 if its inline stream runs past the end. */
static int cur_ref(struct mt_fxt_reader *r, struct cur *c, unsigned ref,
		   struct mt_fxt_str *s, unsigned *undefined)
{
	const struct mt_fxt_ent *e = NULL;

	s->ref = (uint16_t)ref;
	s->p = "";
	s->len = 0;
	if (!ref)
		return 0;
	if (ref & 0x8000)
		return cur_stream(r, c, ref & 0x7fff, s);
	if (r->cur >= 0)
		e = tab_find(r, ent_key(K_STR, cur_gen(r), ref));
	if (!e) {
		s->p = NULL;
		(*undefined)++;
		return 0;
	}
	s->p = e->p;
	s->len = (size_t)e->a;
	return 0;
}

static int cur_thread(struct mt_fxt_reader *r, struct cur *c, unsigned ref,
		      struct mt_fxt_thread *t)
{
	const struct mt_fxt_ent *e = NULL;

	t->ref = (uint8_t)ref;
	t->undefined = 0;
	t->pid = t->tid = 0;
	if (!ref)
		return cur_word(c, &t->pid) || cur_word(c, &t->tid) ? -1 : 0;
	if (r->cur >= 0)
		e = tab_find(r, ent_key(K_THREAD, cur_gen(r), ref));
	if (!e) {
		t->undefined = 1;
		return 0;
	}
	t->pid = e->a;
	t->tid = e->b;
	return 0;
}

/* n arguments into args; *nargs counts the whole ones. NULL, or what was
 * wrong. */
static const char *cur_args(struct mt_fxt_reader *r, struct cur *c,
			    unsigned n, struct mt_fxt_arg *args,
			    unsigned *nargs, unsigned *undefined)
{
	unsigned i;

	*nargs = 0;
	for (i = 0; i < n; i++) {
		struct mt_fxt_arg *a = &args[i];
		size_t base = c->pos;
		struct cur sub;
		uint64_t h, w;

		memset(a, 0, sizeof(*a));
		a->name.p = a->s.p = "";
		if (cur_word(c, &h))
			return "argument header past the end of the record";
		a->type = (unsigned)bits(h, 0, 3);
		a->size = (unsigned)bits(h, 4, 15);
		if (!a->size)
			return "argument of size 0";
		if (a->size > c->end - base)
			return "argument past the end of the record";
		sub = *c;
		sub.end = base + a->size;
		if (cur_ref(r, &sub, (unsigned)bits(h, 16, 31), &a->name,
			    undefined))
			return "argument name past the argument's size";
		switch (a->type) {
		case MT_FXT_ARG_NULL:
			break;
		case MT_FXT_ARG_INT32:
			a->u = h >> 32;
			a->i = (int32_t)(uint32_t)a->u;
			break;
		case MT_FXT_ARG_UINT32:
			a->u = h >> 32;
			a->i = (int64_t)a->u;
			break;
		case MT_FXT_ARG_INT64:
		case MT_FXT_ARG_UINT64:
		case MT_FXT_ARG_POINTER:
		case MT_FXT_ARG_KOID:
		case MT_FXT_ARG_DOUBLE:
			if (cur_word(&sub, &w))
				return "argument value past the argument's size";
			a->u = w;
			a->i = (int64_t)w;
			memcpy(&a->d, &w, sizeof(a->d));
			if (a->type != MT_FXT_ARG_DOUBLE)
				a->d = 0;
			break;
		case MT_FXT_ARG_STRING:
			if (cur_ref(r, &sub, (unsigned)bits(h, 32, 47), &a->s,
				    undefined))
				return "argument value past the argument's size";
			break;
		case MT_FXT_ARG_BOOL:
			a->u = (h >> 32) != 0;
			a->i = (int64_t)a->u;
			break;
		case MT_FXT_ARG_BLOB:
			a->u = h >> 32;
			if (cur_stream(r, &sub, a->u, &a->s))
				return "blob argument past the argument's size";
			break;
		default:
			break;
		}
		c->pos = base + a->size;
		*nargs = i + 1;
	}
	return NULL;
}

static const char *read_meta(struct mt_fxt_reader *r, struct cur *c,
			     uint64_t h, struct mt_fxt_meta *m)
{
	const struct mt_fxt_ent *e;

	memset(m, 0, sizeof(*m));
	m->name.p = "";
	m->type = (unsigned)bits(h, 16, 19);
	m->provider_id = (uint32_t)bits(h, 20, 51);
	switch (m->type) {
	case MT_FXT_META_PROVIDER_INFO:
		if (cur_stream(r, c, bits(h, 52, 59), &m->name))
			return "provider name past the end of the record";
		return prov_register(r, m->provider_id, m->name.p,
				     m->name.len) ? oom : NULL;
	case MT_FXT_META_PROVIDER_SECTION:
		e = tab_find(r, ent_key(K_PROV, 0, m->provider_id));
		r->cur = e ? (long)e->a : -1;
		break;
	case MT_FXT_META_PROVIDER_EVENT:
		m->event = (unsigned)bits(h, 52, 55);
		break;
	case MT_FXT_META_TRACE_INFO:
		m->provider_id = 0;
		m->info_type = (unsigned)bits(h, 20, 23);
		break;
	default:
		m->provider_id = 0;
		break;
	}
	return NULL;
}

/* A string or thread registration: -1 when out of memory. */
static int put_string(struct mt_fxt_reader *r, unsigned index,
		      const struct mt_fxt_str *s)
{
	struct mt_fxt_ent *e;
	char *copy;

	if (!index || r->cur < 0)
		return 0;
	copy = malloc(s->len + 1);
	if (!copy)
		return -1;
	e = tab_put(r, ent_key(K_STR, cur_gen(r), index));
	if (!e) {
		free(copy);
		return -1;
	}
	if (s->len)
		memcpy(copy, s->p, s->len);
	copy[s->len] = '\0';
	free(e->p);
	e->p = copy;
	e->a = s->len;
	return 0;
}

static int put_thread(struct mt_fxt_reader *r, unsigned index, uint64_t pid,
		      uint64_t tid)
{
	struct mt_fxt_ent *e;

	if (!index || r->cur < 0)
		return 0;
	e = tab_put(r, ent_key(K_THREAD, cur_gen(r), index));
	if (!e)
		return -1;
	e->a = pid;
	e->b = tid;
	return 0;
}

static const char *read_event(struct mt_fxt_reader *r, struct cur *c,
			      uint64_t h, struct mt_fxt_record *rec)
{
	struct mt_fxt_event *ev = &rec->u.event;
	unsigned n = (unsigned)bits(h, 20, 23);
	const char *why;

	ev->type = (unsigned)bits(h, 16, 19);
	ev->ts = ev->end_ts = ev->id = 0;
	ev->nargs = 0;
	ev->cat.p = ev->name.p = "";
	ev->cat.len = ev->name.len = 0;
	ev->cat.ref = (uint16_t)bits(h, 32, 47);
	ev->name.ref = (uint16_t)bits(h, 48, 63);
	memset(&ev->thread, 0, sizeof(ev->thread));
	ev->thread.ref = (uint8_t)bits(h, 24, 31);
	if (cur_word(c, &ev->ts))
		return "no timestamp word";
	if (cur_thread(r, c, ev->thread.ref, &ev->thread))
		return "inline thread past the end of the record";
	if (cur_ref(r, c, ev->cat.ref, &ev->cat, &rec->undefined))
		return "inline category past the end of the record";
	if (cur_ref(r, c, ev->name.ref, &ev->name, &rec->undefined))
		return "inline name past the end of the record";
	why = cur_args(r, c, n, ev->args, &ev->nargs, &rec->undefined);
	if (why)
		return why;
	switch (ev->type) {
	case MT_FXT_EV_COMPLETE:
		if (cur_word(c, &ev->end_ts))
			return "no end timestamp word";
		break;
	case MT_FXT_EV_COUNTER:
	case MT_FXT_EV_ASYNC_BEGIN:
	case MT_FXT_EV_ASYNC_INSTANT:
	case MT_FXT_EV_ASYNC_END:
	case MT_FXT_EV_FLOW_BEGIN:
	case MT_FXT_EV_FLOW_STEP:
	case MT_FXT_EV_FLOW_END:
		if (cur_word(c, &ev->id))
			return "no id word";
		break;
	default:
		break;
	}
	return NULL;
}

static const char *read_kobj(struct mt_fxt_reader *r, struct cur *c,
			     uint64_t h, struct mt_fxt_record *rec)
{
	struct mt_fxt_kobj *k = &rec->u.kobj;

	k->obj_type = (unsigned)bits(h, 16, 23);
	k->koid = 0;
	k->nargs = 0;
	k->name.p = "";
	k->name.len = 0;
	k->name.ref = (uint16_t)bits(h, 24, 39);
	if (cur_word(c, &k->koid))
		return "no koid word";
	if (cur_ref(r, c, k->name.ref, &k->name, &rec->undefined))
		return "inline name past the end of the record";
	return cur_args(r, c, (unsigned)bits(h, 40, 43), k->args, &k->nargs,
			&rec->undefined);
}

/* Decode the body of rec (header fields set); NULL or what was wrong. The
 * registrations of string, thread, init and provider records happen here,
 * in file order. */
static const char *read_body(struct mt_fxt_reader *r, struct cur *c,
			     struct mt_fxt_record *rec)
{
	uint64_t h = rec->header;

	switch (rec->type) {
	case MT_FXT_METADATA:
		return read_meta(r, c, h, &rec->u.meta);
	case MT_FXT_INIT:
		rec->u.ticks_per_second = 0;
		if (cur_word(c, &rec->u.ticks_per_second))
			return "no ticks-per-second word";
		if (r->cur >= 0) {
			r->provs[r->cur].ticks_per_second =
				rec->u.ticks_per_second;
			r->provs[r->cur].has_init = 1;
		}
		return NULL;
	case MT_FXT_STRING: {
		struct mt_fxt_string_rec *s = &rec->u.string;

		s->index = (unsigned)bits(h, 16, 30);
		s->str.ref = 0;
		s->str.p = "";
		s->str.len = 0;
		if (cur_stream(r, c, bits(h, 32, 46), &s->str))
			return "string past the end of the record";
		return put_string(r, s->index, &s->str) ? oom : NULL;
	}
	case MT_FXT_THREAD: {
		struct mt_fxt_thread_rec *t = &rec->u.thread;

		t->index = (unsigned)bits(h, 16, 23);
		t->pid = t->tid = 0;
		if (cur_word(c, &t->pid) || cur_word(c, &t->tid))
			return "thread record shorter than 3 words";
		return put_thread(r, t->index, t->pid, t->tid) ? oom : NULL;
	}
	case MT_FXT_EVENT:
		return read_event(r, c, h, rec);
	case MT_FXT_KOBJ:
		return read_kobj(r, c, h, rec);
	default:
		return NULL;
	}
}

static int reader_fail(struct mt_fxt_reader *r, int err)
{
	r->err = err;
	return err;
}

int mt_fxt_next(struct mt_fxt_reader *r, struct mt_fxt_record *rec)
{
	size_t left;
	uint64_t h, words;
	struct cur c;
	const char *why;

	if (r->err)
		return r->err;
	if (!r->started) {
		r->scratch = malloc(SCRATCH_SIZE);
		if (!r->scratch || prov_register(r, 0, "", 0))
			return reader_fail(r, MT_ENOMEM);
		r->started = 1;
	}
	if (r->read && r->pos == r->len) {
		int err = pull(r);

		if (err) {
			r->err_offset = r->base + r->pos;
			return reader_fail(r, err);
		}
	}
	left = r->len - r->pos;
	if (!left)
		return 0;
	r->err_offset = r->base + r->pos;
	r->err_have = left;
	if (left < 8)
		return reader_fail(r, MT_ETRUNCATED);
	h = mt_get64(r->data + r->pos);
	r->err_header = h;
	words = bits(h, 4, 15);
	if (!words)
		return reader_fail(r, MT_ECORRUPT);
	if (words > left / 8)
		return reader_fail(r, MT_ETRUNCATED);

	rec->type = (unsigned)bits(h, 0, 3);
	rec->header = h;
	rec->offset = r->base + r->pos;
	rec->size = (size_t)words * 8;
	rec->raw = r->data + r->pos;
	rec->bad = 0;
	rec->why = NULL;
	rec->undefined = 0;
	r->scratch_used = 0;
	c.p = rec->raw;
	c.end = (size_t)words;
	c.pos = 1;
	r->pos += rec->size;
	r->nrecords++;

	why = read_body(r, &c, rec);
	if (why == oom)
		return reader_fail(r, MT_ENOMEM);
	if (why) {
		rec->bad = MT_ECORRUPT;
		rec->why = why;
	}
	rec->provider = r->cur >= 0 ? &r->provs[r->cur] : NULL;
	return 1;
}

int mt_fxt_ticks_to_ns(uint64_t ticks, uint64_t ticks_per_second,
		       int64_t *ns)
{
	uint64_t hi = ticks >> 32, lo = ticks & 0xffffffffull;
	uint64_t per_hi, rhi, rlo, sum;

	if (!ticks_per_second)
		return MT_ERANGE;
	per_hi = (MT_FXT_TICKS_NS << 32) / ticks_per_second;
	rhi = hi * per_hi;
	if (hi && rhi / hi != per_hi)
		return MT_ERANGE;
	rlo = lo * MT_FXT_TICKS_NS / ticks_per_second;
	/* the sum may wrap without notice, as in Perfetto (only with ticks
	 * per second far from 1e9) */
	sum = rhi + rlo;
	if (sum > (uint64_t)INT64_MAX)
		return MT_ERANGE;
	*ns = (int64_t)sum;
	return 0;
}
