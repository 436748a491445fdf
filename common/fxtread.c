#include <stdarg.h>
#include <stdio.h>
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
	mt_fxt_reader_init_mem(r, NULL, 0);
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
	left = r->len - r->pos;
	if (!left)
		return 0;
	r->err_offset = r->base + r->pos;
	if (left < 8)
		return reader_fail(r, MT_ETRUNCATED);
	h = mt_get64(r->data + r->pos);
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

/* ---- checking ---- */

#define PENDING (-1)

/* A thread-track event kept for the replay. */
struct mt_fxt_cev {
	uint32_t pid, tid;
	unsigned type;
	int64_t ts, dur;    /* dur: complete; 0 instant; PENDING otherwise */
	uint64_t order, offset;
	uint32_t name, cat;
	size_t arg0, nargs;
};

static const char *const problem_names[MT_FXT_NPROBLEMS] = {
	[MT_FXT_BAD_MAGIC] = "bad_magic",
	[MT_FXT_SIZE_ZERO] = "size_zero",
	[MT_FXT_TRUNCATED] = "truncated",
	[MT_FXT_BAD_RECORD] = "bad_record",
	[MT_FXT_BAD_RECORD_TYPE] = "bad_record_type",
	[MT_FXT_BAD_ARG_TYPE] = "bad_arg_type",
	[MT_FXT_PROVIDER_MISSING] = "provider_missing",
	[MT_FXT_INIT_MISSING] = "init_missing",
	[MT_FXT_BAD_TICKS] = "bad_ticks",
	[MT_FXT_UNDEFINED_STRING] = "undefined_string",
	[MT_FXT_UNDEFINED_THREAD] = "undefined_thread",
	[MT_FXT_TIMESTAMP_OVERFLOW] = "timestamp_overflow",
	[MT_FXT_KOID_TRUNCATED] = "koid_truncated",
	[MT_FXT_THREAD_PROCESS_ARG] = "thread_process_arg",
	[MT_FXT_SLICE_DROP_OVERLAPPING] = "slice_drop_overlapping",
	[MT_FXT_MISPLACED_END] = "misplaced_end",
	[MT_FXT_END_WITHOUT_BEGIN] = "end_without_begin",
	[MT_FXT_DID_NOT_END] = "did_not_end",
	[MT_FXT_DEPTH_OVER_512] = "depth_over_512",
};

const char *mt_fxt_problem_name(int problem)
{
	if (problem < 0 || problem >= MT_FXT_NPROBLEMS)
		return NULL;
	return problem_names[problem];
}

static const char *const rec_names[16] = {
	"metadata", "initialization", "string", "thread", "event", "blob",
	"userspace object", "kernel object", "scheduling", "log", "type 10",
	"type 11", "type 12", "type 13", "type 14", "large"
};

void mt_fxt_check_init(struct mt_fxt_check *c)
{
	memset(c, 0, sizeof(*c));
	mt_intern_init(&c->strs);
}

void mt_fxt_check_release(struct mt_fxt_check *c)
{
	mt_intern_release(&c->strs);
	free(c->evs);
	free(c->slices);
	free(c->args);
	free(c->names);
	free(c->init_warned);
	mt_fxt_check_init(c);
}

static void problem(struct mt_fxt_check *c, int kind, uint64_t offset,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void problem(struct mt_fxt_check *c, int kind, uint64_t offset,
		    const char *fmt, ...)
{
	uint64_t n = c->count[kind]++;
	struct mt_fxt_example *ex;
	va_list ap;
	char *s;

	if (n >= MT_FXT_EXAMPLES)
		return;
	ex = &c->ex[kind][n];
	ex->offset = offset;
	va_start(ap, fmt);
	vsnprintf(ex->what, sizeof(ex->what), fmt, ap);
	va_end(ap);
	/* names go into the text: keep it one printable line */
	for (s = ex->what; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

/* A string of the input for a message ("%.40s" keeps 40 bytes of it). */
#define SHOW(s) ((s)->p ? (s)->p : "?")

const char *mt_fxt_check_str(const struct mt_fxt_check *c, uint32_t id,
			     size_t *len)
{
	const char *p = id ? mt_intern_str(&c->strs, id, len) : NULL;

	if (!p) {
		if (len)
			*len = 0;
		return "";
	}
	return p;
}

static int intern(struct mt_fxt_check *c, const struct mt_fxt_str *s,
		  uint32_t *id)
{
	int err;

	*id = 0;
	if (!s->p || !s->len)
		return 0;
	err = mt_intern_get(&c->strs, s->p, s->len, id, NULL);
	return err == MT_ENOMEM || !err ? err : MT_ENOMEM;
}

/* Room for n more elements of size sz in *v (capacity *cap, count len). */
static int grow(void **v, size_t *cap, size_t len, size_t n, size_t sz)
{
	size_t want = *cap ? *cap : 64;
	void *p;

	if (len + n <= *cap)
		return 0;
	while (want < len + n) {
		if (want > SIZE_MAX / 2 / sz)
			return MT_ENOMEM;
		want *= 2;
	}
	p = realloc(*v, want * sz);
	if (!p)
		return MT_ENOMEM;
	*v = p;
	*cap = want;
	return 0;
}

static int add_args(struct mt_fxt_check *c, const struct mt_fxt_arg *a,
		    unsigned n, size_t *arg0)
{
	unsigned i;
	int err = grow((void **)&c->args, &c->argcap, c->nargs, n,
		       sizeof(*c->args));

	*arg0 = c->nargs;
	for (i = 0; !err && i < n; i++) {
		struct mt_fxt_slice_arg *d = &c->args[c->nargs];

		memset(d, 0, sizeof(*d));
		d->type = a[i].type;
		d->u = a[i].u;
		d->i = a[i].i;
		d->d = a[i].d;
		err = intern(c, &a[i].name, &d->name);
		if (!err && a[i].type == MT_FXT_ARG_STRING)
			err = intern(c, &a[i].s, &d->s);
		if (!err)
			c->nargs++;
	}
	return err;
}

static void check_init_seen(struct mt_fxt_check *c,
			    const struct mt_fxt_record *rec)
{
	const struct mt_fxt_provider *p = rec->provider;
	size_t gen = p->gen;

	if (p->has_init)
		return;
	if (gen >= c->init_warned_len) {
		size_t n = c->init_warned_len ? c->init_warned_len : 16;
		unsigned char *w;

		while (n <= gen)
			n *= 2;
		w = realloc(c->init_warned, n);
		if (!w)
			return; /* only costs a repeated message */
		memset(w + c->init_warned_len, 0, n - c->init_warned_len);
		c->init_warned = w;
		c->init_warned_len = n;
	}
	if (c->init_warned[gen])
		return;
	c->init_warned[gen] = 1;
	problem(c, MT_FXT_INIT_MISSING, rec->offset,
		"events of provider %u \"%.40s\" with no initialization record "
		"before them", p->id, p->name);
}

/* The first undefined string ref of an event or kernel object: 1 if one was
 * found (and counted). */
static int undefined_strings(struct mt_fxt_check *c,
			     const struct mt_fxt_record *rec,
			     const struct mt_fxt_str *name,
			     const struct mt_fxt_str *cat,
			     const struct mt_fxt_arg *args, unsigned nargs)
{
	unsigned i;

	if (!rec->undefined)
		return 0;
	if (cat && !cat->p) {
		problem(c, MT_FXT_UNDEFINED_STRING, rec->offset,
			"%s: category string index %u undefined",
			rec_names[rec->type], cat->ref);
		return 1;
	}
	if (!name->p) {
		problem(c, MT_FXT_UNDEFINED_STRING, rec->offset,
			"%s: name string index %u undefined",
			rec_names[rec->type], name->ref);
		return 1;
	}
	for (i = 0; i < nargs; i++) {
		if (!args[i].name.p || !args[i].s.p) {
			problem(c, MT_FXT_UNDEFINED_STRING, rec->offset,
				"%s \"%.40s\": argument %u %s string index %u "
				"undefined", rec_names[rec->type], SHOW(name),
				i + 1, args[i].name.p ? "value" : "name",
				args[i].name.p ? args[i].s.ref
					       : args[i].name.ref);
			return 1;
		}
	}
	/* a string ref past the decoded arguments of a bad record */
	problem(c, MT_FXT_UNDEFINED_STRING, rec->offset,
		"%s: string index undefined", rec_names[rec->type]);
	return 1;
}

static void bad_arg_types(struct mt_fxt_check *c,
			  const struct mt_fxt_record *rec,
			  const struct mt_fxt_str *name,
			  const struct mt_fxt_arg *args, unsigned nargs)
{
	unsigned i;

	for (i = 0; i < nargs; i++)
		if (args[i].type > MT_FXT_ARG_BOOL)
			problem(c, MT_FXT_BAD_ARG_TYPE, rec->offset,
				"%s \"%.40s\": argument \"%.40s\" of type %u",
				rec_names[rec->type], SHOW(name),
				SHOW(&args[i].name), args[i].type);
}

static void koid_check(struct mt_fxt_check *c, uint64_t offset,
		       const char *what, uint64_t koid)
{
	if (koid >> 32)
		problem(c, MT_FXT_KOID_TRUNCATED, offset,
			"%s %llu does not fit in 32 bits: Perfetto keeps %u",
			what, (unsigned long long)koid, (uint32_t)koid);
}

static int check_event(struct mt_fxt_check *c, const struct mt_fxt_record *rec)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	uint64_t tps = rec->provider->ticks_per_second;
	struct mt_fxt_cev *e;
	int64_t ts, end, dur = PENDING;
	int err;

	if (ev->type > MT_FXT_EV_FLOW_END) {
		problem(c, MT_FXT_BAD_RECORD_TYPE, rec->offset, "event type %u",
			ev->type);
		return 0;
	}
	check_init_seen(c, rec);
	if (mt_fxt_ticks_to_ns(ev->ts, tps, &ts)) {
		problem(c, MT_FXT_TIMESTAMP_OVERFLOW, rec->offset,
			"event \"%.40s\": ts %llu ticks at %llu/s is not an "
			"int64 of ns", SHOW(&ev->name),
			(unsigned long long)ev->ts, (unsigned long long)tps);
		return 0;
	}
	if (undefined_strings(c, rec, &ev->name, &ev->cat, ev->args,
			      ev->nargs))
		return 0;
	if (ev->thread.undefined)
		problem(c, MT_FXT_UNDEFINED_THREAD, rec->offset,
			"event \"%.40s\": thread index %u undefined: pid 0 "
			"tid 0", SHOW(&ev->name), ev->thread.ref);
	bad_arg_types(c, rec, &ev->name, ev->args, ev->nargs);
	koid_check(c, rec->offset, "pid", ev->thread.pid);
	koid_check(c, rec->offset, "tid", ev->thread.tid);

	switch (ev->type) {
	case MT_FXT_EV_INSTANT:
		dur = 0;
		break;
	case MT_FXT_EV_BEGIN:
	case MT_FXT_EV_END:
		break;
	case MT_FXT_EV_COMPLETE:
		/* Perfetto reads an overflowing end as -1 */
		if (mt_fxt_ticks_to_ns(ev->end_ts, tps, &end))
			end = -1;
		if (end < ts) {
			problem(c, MT_FXT_TIMESTAMP_OVERFLOW, rec->offset,
				"complete event \"%.40s\" ends (%llu ticks) "
				"before it starts (%llu)", SHOW(&ev->name),
				(unsigned long long)ev->end_ts,
				(unsigned long long)ev->ts);
			return 0;
		}
		dur = end - ts;
		break;
	default:
		return 0; /* counters, async, flows: not on thread tracks */
	}

	err = grow((void **)&c->evs, &c->evcap, c->nevs, 1, sizeof(*c->evs));
	if (err)
		return err;
	e = &c->evs[c->nevs];
	memset(e, 0, sizeof(*e));
	e->pid = (uint32_t)ev->thread.pid;
	e->tid = (uint32_t)ev->thread.tid;
	e->type = ev->type;
	e->ts = ts;
	e->dur = dur;
	e->order = c->nevs;
	e->offset = rec->offset;
	if ((err = intern(c, &ev->name, &e->name)) ||
	    (err = intern(c, &ev->cat, &e->cat)) ||
	    (err = add_args(c, ev->args, ev->nargs, &e->arg0)))
		return err;
	e->nargs = ev->nargs;
	c->nevs++;
	return 0;
}

static int add_name(struct mt_fxt_check *c, int thread, uint32_t pid,
		    uint32_t tid, const struct mt_fxt_str *name,
		    uint64_t offset)
{
	struct mt_fxt_name *n;
	int err = grow((void **)&c->names, &c->namecap, c->nnames, 1,
		       sizeof(*c->names));

	if (err)
		return err;
	n = &c->names[c->nnames];
	n->thread = thread;
	n->pid = pid;
	n->tid = tid;
	n->offset = offset;
	err = intern(c, name, &n->name);
	if (!err)
		c->nnames++;
	return err;
}

static int check_kobj(struct mt_fxt_check *c, const struct mt_fxt_record *rec)
{
	const struct mt_fxt_kobj *k = &rec->u.kobj;
	const struct mt_fxt_arg *proc = NULL;
	unsigned i;

	if (!k->name.p) {
		problem(c, MT_FXT_UNDEFINED_STRING, rec->offset,
			"kernel object %llu: name string index %u undefined",
			(unsigned long long)k->koid, k->name.ref);
		return 0;
	}
	if (k->obj_type == MT_FXT_OBJ_PROCESS) {
		koid_check(c, rec->offset, "process koid", k->koid);
		return add_name(c, 0, (uint32_t)k->koid, 0, &k->name,
				rec->offset);
	}
	if (k->obj_type != MT_FXT_OBJ_THREAD)
		return 0; /* Perfetto skips other objects */
	if (rec->undefined)
		undefined_strings(c, rec, &k->name, NULL, k->args, k->nargs);
	bad_arg_types(c, rec, &k->name, k->args, k->nargs);
	for (i = 0; i < k->nargs; i++) {
		const struct mt_fxt_arg *a = &k->args[i];

		if (!a->name.p || a->name.len != 7 ||
		    memcmp(a->name.p, "process", 7))
			continue;
		if (a->type != MT_FXT_ARG_KOID) {
			problem(c, MT_FXT_THREAD_PROCESS_ARG, rec->offset,
				"thread %llu \"%.40s\": \"process\" argument of "
				"type %u, not koid (8): no name",
				(unsigned long long)k->koid, k->name.p, a->type);
			return 0;
		}
		proc = a;
	}
	if (!proc)
		problem(c, MT_FXT_THREAD_PROCESS_ARG, rec->offset,
			"thread %llu \"%.40s\" has no \"process\" argument: "
			"pid 0", (unsigned long long)k->koid, k->name.p);
	koid_check(c, rec->offset, "thread koid", k->koid);
	if (proc)
		koid_check(c, rec->offset, "process koid", proc->u);
	return add_name(c, 1, proc ? (uint32_t)proc->u : 0, (uint32_t)k->koid,
			&k->name, rec->offset);
}

int mt_fxt_check_record(struct mt_fxt_check *c,
			const struct mt_fxt_record *rec)
{
	c->nrecords++;
	if (rec->offset == 0) {
		c->seen_first = 1;
		if (rec->header != MT_FXT_MAGIC)
			problem(c, MT_FXT_BAD_MAGIC, 0,
				"the first word is 0x%016llx, not the magic "
				"0x%016llx", (unsigned long long)rec->header,
				(unsigned long long)MT_FXT_MAGIC);
	}
	switch (rec->type) {
	case MT_FXT_METADATA:
	case MT_FXT_INIT:
	case MT_FXT_STRING:
	case MT_FXT_THREAD:
	case MT_FXT_EVENT:
	case MT_FXT_KOBJ:
		break;
	default:
		problem(c, MT_FXT_BAD_RECORD_TYPE, rec->offset,
			"record type %u (%s)", rec->type, rec_names[rec->type & 15]);
		return 0;
	}
	if (rec->bad) {
		problem(c, MT_FXT_BAD_RECORD, rec->offset, "%s record: %s",
			rec_names[rec->type], rec->why);
		return 0;
	}
	if (rec->type == MT_FXT_METADATA) {
		const struct mt_fxt_meta *m = &rec->u.meta;

		if (m->type < MT_FXT_META_PROVIDER_INFO ||
		    m->type > MT_FXT_META_TRACE_INFO)
			problem(c, MT_FXT_BAD_RECORD_TYPE, rec->offset,
				"metadata type %u", m->type);
		else if (m->type == MT_FXT_META_PROVIDER_SECTION &&
			 !rec->provider)
			problem(c, MT_FXT_PROVIDER_MISSING, rec->offset,
				"provider section for id %u, which had no "
				"provider info: later records are dropped",
				m->provider_id);
		return 0;
	}
	if (!rec->provider) {
		problem(c, MT_FXT_PROVIDER_MISSING, rec->offset,
			"%s record dropped: no current provider",
			rec_names[rec->type]);
		return 0;
	}
	switch (rec->type) {
	case MT_FXT_INIT:
		if (rec->u.ticks_per_second != MT_FXT_TICKS_NS)
			problem(c, MT_FXT_BAD_TICKS, rec->offset,
				"%llu ticks per second, not 1000000000",
				(unsigned long long)rec->u.ticks_per_second);
		return 0;
	case MT_FXT_EVENT:
		return check_event(c, rec);
	case MT_FXT_KOBJ:
		return check_kobj(c, rec);
	default:
		return 0;
	}
}

int mt_fxt_check_error(struct mt_fxt_check *c, int err, uint64_t offset)
{
	switch (err) {
	case MT_ECORRUPT:
		problem(c, MT_FXT_SIZE_ZERO, offset,
			"record header of size 0: the import stops here");
		return 0;
	case MT_ETRUNCATED:
		problem(c, MT_FXT_TRUNCATED, offset,
			"the input ends inside a record");
		return 0;
	default:
		return err;
	}
}

/* ---- the slice tracker replay (fxt.md 2.6) ---- */

struct nest {
	struct mt_fxt_check *c;
	size_t stack[MT_FXT_MAX_DEPTH]; /* indexes in c->slices */
	size_t sp;
};

static const char *cname(const struct mt_fxt_check *c, uint32_t id)
{
	return mt_fxt_check_str(c, id, NULL);
}

/*
 * SliceTracker::MaybeCloseStack, statement for statement, quirks included:
 * a pop always takes the top of the stack, even when the slice that ended
 * lies below it. Returns 0 when the new slice [ts, ts + dur) partially
 * overlaps an open one (it is then dropped).
 */
static int maybe_close(struct nest *n, const struct mt_fxt_cev *e,
		       int64_t dur)
{
	struct mt_fxt_check *c = n->c;
	int incomplete = 0;
	size_t i;

	for (i = n->sp; i-- > 0;) {
		struct mt_fxt_slice *s = &c->slices[n->stack[i]];
		int64_t end;

		if (s->dur == PENDING) {
			incomplete = 1;
			continue;
		}
		end = s->start + s->dur;
		if (incomplete) {
			if (e->ts <= end)
				continue;
			problem(c, MT_FXT_MISPLACED_END, s->offset,
				"pid %u tid %u: slices begun inside \"%.40s\" "
				"[%lld, %lld) and open at %lld are cut at its "
				"end", e->pid, e->tid, cname(c, s->name),
				(long long)s->start, (long long)end,
				(long long)e->ts);
			while (n->sp > i + 1) {
				struct mt_fxt_slice *t =
					&c->slices[n->stack[--n->sp]];

				t->dur = end - t->start;
			}
			n->sp--;
			incomplete = 0;
			continue;
		}
		if (end < e->ts ||
		    (end == e->ts && !(s->dur == 0 && dur == 0))) {
			n->sp--;
			continue;
		}
		if (dur == PENDING)
			continue;
		if (e->ts < end && e->ts + dur > end) {
			problem(c, MT_FXT_SLICE_DROP_OVERLAPPING, e->offset,
				"pid %u tid %u: \"%.40s\" [%lld, %lld) partially "
				"overlaps \"%.40s\" [%lld, %lld): dropped",
				e->pid, e->tid, cname(c, e->name),
				(long long)e->ts, (long long)(e->ts + dur),
				cname(c, s->name), (long long)s->start,
				(long long)end);
			return 0;
		}
	}
	return 1;
}

/* SliceTracker::StartSlice: Begin (dur PENDING), Scoped (complete,
 * instant). */
static int start_slice(struct nest *n, const struct mt_fxt_cev *e)
{
	struct mt_fxt_check *c = n->c;
	struct mt_fxt_slice *s;
	int err;

	if (!maybe_close(n, e, e->dur))
		return 0;
	if (n->sp >= MT_FXT_MAX_DEPTH) {
		problem(c, MT_FXT_DEPTH_OVER_512, e->offset,
			"pid %u tid %u: \"%.40s\" at %lld would be at depth %zu: "
			"dropped", e->pid, e->tid, cname(c, e->name),
			(long long)e->ts, n->sp);
		return 0;
	}
	err = grow((void **)&c->slices, &c->slicecap, c->nslices, 1,
		   sizeof(*c->slices));
	if (err)
		return err;
	s = &c->slices[c->nslices];
	s->pid = e->pid;
	s->tid = e->tid;
	s->start = e->ts;
	s->dur = e->dur;
	s->depth = (unsigned)n->sp;
	s->order = e->order;
	s->offset = e->offset;
	s->ev_type = e->type;
	s->name = e->name;
	s->cat = e->cat;
	s->arg0 = e->arg0;
	s->nargs = e->nargs;
	n->stack[n->sp++] = c->nslices++;
	return 0;
}

/* The end's arguments go to the slice it closes. */
static int merge_args(struct mt_fxt_check *c, struct mt_fxt_slice *s,
		      const struct mt_fxt_cev *e)
{
	int err;

	if (!e->nargs)
		return 0;
	if (s->arg0 + s->nargs != c->nargs || !s->nargs) {
		err = grow((void **)&c->args, &c->argcap, c->nargs, s->nargs,
			   sizeof(*c->args));
		if (err)
			return err;
		if (s->nargs)
			memcpy(c->args + c->nargs, c->args + s->arg0,
			       s->nargs * sizeof(*c->args));
		s->arg0 = c->nargs;
		c->nargs += s->nargs;
	}
	err = grow((void **)&c->args, &c->argcap, c->nargs, e->nargs,
		   sizeof(*c->args));
	if (err)
		return err;
	memcpy(c->args + c->nargs, c->args + e->arg0,
	       e->nargs * sizeof(*c->args));
	c->nargs += e->nargs;
	s->nargs += e->nargs;
	return 0;
}

/* SliceTracker::End with no name or category: the top-most begun slice. */
static int end_slice(struct nest *n, const struct mt_fxt_cev *e)
{
	struct mt_fxt_check *c = n->c;
	struct mt_fxt_slice *s;
	size_t i;

	maybe_close(n, e, PENDING);
	for (i = n->sp; i-- > 0;)
		if (c->slices[n->stack[i]].dur == PENDING)
			break;
	if (i == (size_t)-1) {
		problem(c, MT_FXT_END_WITHOUT_BEGIN, e->offset,
			"pid %u tid %u: end at %lld with no begun slice open: "
			"ignored", e->pid, e->tid, (long long)e->ts);
		return 0;
	}
	s = &c->slices[n->stack[i]];
	s->dur = e->ts - s->start;
	if (i == n->sp - 1)
		n->sp--;
	return merge_args(c, s, e);
}

static int cmp_cev(const void *a, const void *b)
{
	const struct mt_fxt_cev *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_name(const void *a, const void *b)
{
	const struct mt_fxt_name *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int replay(struct mt_fxt_check *c)
{
	struct nest *n = malloc(sizeof(*n));
	size_t i;
	int err = 0;

	if (!n)
		return MT_ENOMEM;
	n->c = c;
	n->sp = 0;
	if (c->nevs)
		qsort(c->evs, c->nevs, sizeof(*c->evs), cmp_cev);
	for (i = 0; !err && i < c->nevs; i++) {
		const struct mt_fxt_cev *e = &c->evs[i];

		if (!i || e->pid != e[-1].pid || e->tid != e[-1].tid) {
			n->sp = 0;
			c->nthreads++;
		}
		if (e->type == MT_FXT_EV_END)
			err = end_slice(n, e);
		else
			err = start_slice(n, e);
	}
	free(n);
	for (i = 0; !err && i < c->nslices; i++) {
		const struct mt_fxt_slice *s = &c->slices[i];

		if (s->dur == PENDING)
			problem(c, MT_FXT_DID_NOT_END, s->offset,
				"pid %u tid %u: \"%.40s\" begun at %lld never "
				"ends", s->pid, s->tid, cname(c, s->name),
				(long long)s->start);
	}
	return err;
}

int mt_fxt_check_finish(struct mt_fxt_check *c)
{
	size_t i, k;
	int err;

	if (c->finished)
		return 0;
	c->finished = 1;
	if (!c->seen_first)
		problem(c, MT_FXT_BAD_MAGIC, 0,
			"no record at offset 0: no magic");
	err = replay(c);
	free(c->evs);
	c->evs = NULL;
	c->nevs = c->evcap = 0;
	if (err)
		return err;
	/* the last name given to a process or thread wins */
	if (c->nnames)
		qsort(c->names, c->nnames, sizeof(*c->names), cmp_name);
	for (i = k = 0; i < c->nnames; i++) {
		const struct mt_fxt_name *x = &c->names[i];

		if (i + 1 < c->nnames && x[1].pid == x->pid &&
		    x[1].thread == x->thread && x[1].tid == x->tid)
			continue;
		c->names[k++] = *x;
	}
	c->nnames = k;
	return 0;
}

int mt_fxt_check_mem(struct mt_fxt_check *c, const void *data, size_t len)
{
	struct mt_fxt_reader r;
	struct mt_fxt_record *rec = malloc(sizeof(*rec));
	int got, err = 0;

	if (!rec)
		return MT_ENOMEM;
	mt_fxt_reader_init_mem(&r, data, len);
	while ((got = mt_fxt_next(&r, rec)) == 1) {
		err = mt_fxt_check_record(c, rec);
		if (err)
			break;
	}
	if (!err && got < 0)
		err = mt_fxt_check_error(c, got, mt_fxt_reader_offset(&r));
	mt_fxt_reader_release(&r);
	free(rec);
	return err ? err : mt_fxt_check_finish(c);
}

uint64_t mt_fxt_check_problems(const struct mt_fxt_check *c)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < MT_FXT_NPROBLEMS; i++)
		n += c->count[i];
	return n;
}
