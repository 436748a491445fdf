#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "fxtcheck.h"
#include "nest.h"
#include "banned.h"

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

static int add_args(struct mt_fxt_check *c, const struct mt_fxt_arg *a,
		    unsigned n, size_t *arg0)
{
	unsigned i;
	int err = mt_grow(&c->args, &c->argcap, c->nargs + n, sizeof(*c->args));

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
	if (mt_grow(&c->init_warned, &c->init_warned_len, gen + 1, 1))
		return; /* only costs a repeated message */
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

	err = mt_grow(&c->evs, &c->evcap, c->nevs + 1, sizeof(*c->evs));
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
	int err = mt_grow(&c->names, &c->namecap, c->nnames + 1,
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

/* ---- the slice tracker replay (fxt.md 2.6, common/nest.h) ---- */

/* The replay of one check: each frame of the stack carries the index of
 * its slice in c->slices. */
struct replay {
	struct mt_fxt_check *c;
	const struct mt_fxt_cev *e; /* the event being replayed */
	struct mt_nest nest;
};

static const char *cname(const struct mt_fxt_check *c, uint32_t id)
{
	return mt_fxt_check_str(c, id, NULL);
}

static struct mt_fxt_slice *frame_slice(const struct replay *r, size_t i)
{
	return &r->c->slices[*(size_t *)mt_nest_data(&r->nest, i)];
}

/* A slice leaves the stack: its end is final. */
static void on_pop(void *ctx, struct mt_nest *n)
{
	struct replay *r = ctx;
	const struct mt_nest_frame *f = &n->f[n->n];
	struct mt_fxt_slice *s = frame_slice(r, n->n);

	s->dur = f->end == MT_NEST_PENDING ? PENDING :
		 (int64_t)f->end - s->start;
}

static void on_cut(void *ctx, struct mt_nest *n, size_t i, uint64_t ts)
{
	struct replay *r = ctx;
	const struct mt_fxt_slice *s = frame_slice(r, i);

	problem(r->c, MT_FXT_MISPLACED_END, s->offset,
		"pid %u tid %u: slices begun inside \"%.40s\" "
		"[%lld, %lld) and open at %lld are cut at its "
		"end", r->e->pid, r->e->tid, cname(r->c, s->name),
		(long long)s->start, (long long)n->f[i].end, (long long)ts);
}

/* SliceTracker::StartSlice: Begin (dur PENDING), Scoped (complete,
 * instant). */
static int start_slice(struct replay *r, const struct mt_fxt_cev *e)
{
	struct mt_fxt_check *c = r->c;
	struct mt_fxt_slice *s;
	size_t over;
	int err;

	if (!mt_nest_close(&r->nest, (uint64_t)e->ts,
			   e->dur == PENDING ? MT_NEST_PENDING : (uint64_t)e->dur,
			   &over)) {
		const struct mt_fxt_slice *o = frame_slice(r, over);

		problem(c, MT_FXT_SLICE_DROP_OVERLAPPING, e->offset,
			"pid %u tid %u: \"%.40s\" [%lld, %lld) partially "
			"overlaps \"%.40s\" [%lld, %lld): dropped",
			e->pid, e->tid, cname(c, e->name),
			(long long)e->ts, (long long)(e->ts + e->dur),
			cname(c, o->name), (long long)o->start,
			(long long)r->nest.f[over].end);
		return 0;
	}
	if (r->nest.n >= MT_FXT_MAX_DEPTH) {
		problem(c, MT_FXT_DEPTH_OVER_512, e->offset,
			"pid %u tid %u: \"%.40s\" at %lld would be at depth %zu: "
			"dropped", e->pid, e->tid, cname(c, e->name),
			(long long)e->ts, r->nest.n);
		return 0;
	}
	err = mt_grow(&c->slices, &c->slicecap, c->nslices + 1,
		      sizeof(*c->slices));
	if (!err)
		err = mt_nest_push(&r->nest, (uint64_t)e->ts,
				   e->dur == PENDING ? MT_NEST_PENDING :
				   (uint64_t)(e->ts + e->dur));
	if (err)
		return err;
	s = &c->slices[c->nslices];
	s->pid = e->pid;
	s->tid = e->tid;
	s->start = e->ts;
	s->dur = e->dur;
	s->depth = (unsigned)r->nest.n - 1;
	s->order = e->order;
	s->offset = e->offset;
	s->ev_type = e->type;
	s->name = e->name;
	s->cat = e->cat;
	s->arg0 = e->arg0;
	s->nargs = e->nargs;
	*(size_t *)mt_nest_data(&r->nest, r->nest.n - 1) = c->nslices++;
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
		err = mt_grow(&c->args, &c->argcap, c->nargs + s->nargs,
			      sizeof(*c->args));
		if (err)
			return err;
		if (s->nargs)
			memcpy(c->args + c->nargs, c->args + s->arg0,
			       s->nargs * sizeof(*c->args));
		s->arg0 = c->nargs;
		c->nargs += s->nargs;
	}
	err = mt_grow(&c->args, &c->argcap, c->nargs + e->nargs,
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
static int end_slice(struct replay *r, const struct mt_fxt_cev *e)
{
	struct mt_fxt_check *c = r->c;
	struct mt_fxt_slice *s;
	size_t i;

	if (!mt_nest_find_begun(&r->nest, (uint64_t)e->ts, &i)) {
		problem(c, MT_FXT_END_WITHOUT_BEGIN, e->offset,
			"pid %u tid %u: end at %lld with no begun slice open: "
			"ignored", e->pid, e->tid, (long long)e->ts);
		return 0;
	}
	s = frame_slice(r, i);
	s->dur = e->ts - s->start;
	mt_nest_set_end(&r->nest, i, (uint64_t)e->ts);
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
	static const struct mt_nest_ops ops = { .pop = on_pop, .cut = on_cut };
	struct replay r = { .c = c };
	size_t i;
	int err = 0;

	mt_nest_init(&r.nest, sizeof(size_t), &ops, &r);
	if (c->nevs)
		qsort(c->evs, c->nevs, sizeof(*c->evs), cmp_cev);
	for (i = 0; !err && i < c->nevs; i++) {
		const struct mt_fxt_cev *e = &c->evs[i];

		if (!i || e->pid != e[-1].pid || e->tid != e[-1].tid) {
			mt_nest_clear(&r.nest);
			c->nthreads++;
		}
		r.e = e;
		if (e->type == MT_FXT_EV_END)
			err = end_slice(&r, e);
		else
			err = start_slice(&r, e);
	}
	mt_nest_clear(&r.nest);
	mt_nest_release(&r.nest);
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
