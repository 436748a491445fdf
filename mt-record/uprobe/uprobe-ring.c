/*
 * The uprobe engine's rings (uprobe.h, uprobe-internal.h): reading the
 * kernel's per-CPU rings into staged records, taking them in time order
 * once older than the reorder window (return probes' nesting per thread,
 * the trigger, the target's processes only), and keeping the events in
 * the per-CPU snapshot rings.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "uprobe.h"
#include "uprobe-internal.h"
#include "cmp.h"
#include "banned.h"

/* ---- reading the rings ---- */

static const struct mt_uprobe_pev *pev_of(const struct mt_uprobe *u,
					  uint64_t id)
{
	size_t lo = 0, hi = u->npevs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->pevs[mid].id == id)
			return &u->pevs[mid];
		if (u->pevs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Stage e; str (length len) is copied when not NULL. */
static int stage(struct mt_uprobe *u, const struct ev *e, uint64_t x,
		 const char *str, size_t len)
{
	struct mt_uprobe_staged *s;

	if (mt_grow(&u->staged, &u->capstaged, u->nstaged + 1, sizeof(*u->staged)))
		return MT_ENOMEM;
	s = &u->staged[u->nstaged];
	s->ev = *e;
	s->seq = u->seq++;
	s->x = x;
	s->str = NULL;
	s->has_args = 0;
	if (str) {
		s->str = malloc(len + 1);
		if (!s->str)
			return MT_ENOMEM;
		memcpy(s->str, str, len);
		s->str[len] = '\0';
	}
	u->nstaged++;
	return 0;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The time in the sample_id trailer of a non-sample record (pid, tid,
 * time, id: 24 bytes after a body of body bytes). */
static int trailer_time(const unsigned char *rec, size_t size, size_t body,
			uint64_t *time)
{
	if (size < body + 24)
		return -1;
	*time = get64(rec + size - 16);
	return 0;
}

static int on_sample(struct mt_uprobe *u, uint32_t ri, const unsigned char *rec,
		     size_t size)
{
	const struct mt_uprobe_pev *pe;
	struct ev e = { 0 };

	if (size < 8 + 32)
		return 0;
	pe = pev_of(u, get64(rec + 8));
	if (!pe || pe->kind == PEV_SIDE)
		return 0;
	e.ip = get64(rec + 16);
	e.pid = get32(rec + 24);
	e.tid = get32(rec + 28);
	e.time = get64(rec + 32);
	e.probe = pe->probe;
	e.ring = (uint16_t)ri;
	e.kind = pe->kind == PEV_ENTRY ? K_ENTRY : K_RETURN;
	u->rings[ri].last_time = e.time;
	if (stage(u, &e, 0, NULL, 0))
		return MT_ENOMEM;
	/* the trigger's registers after the time: abi, si, di */
	if (e.kind == K_ENTRY && (int)e.probe == u->trigger_probe && size >= 8 + 32 + 24 &&
	    get64(rec + 40) != PERF_SAMPLE_REGS_ABI_NONE) {
		struct mt_uprobe_staged *s = &u->staged[u->nstaged - 1];

		s->has_args = 1;
		s->rsi = get64(rec + 48);
		s->rdi = get64(rec + 56);
	}
	return 0;
}

static int on_record(struct mt_uprobe *u, uint32_t ri, const unsigned char *rec,
		     size_t size)
{
	struct mt_uprobe_ring *r = &u->rings[ri];
	uint32_t type = get32(rec);
	uint16_t misc = (uint16_t)(get32(rec + 4) & 0xffff);
	struct ev e = { 0 };
	uint64_t t;

	e.ring = (uint16_t)ri;
	e.probe = NONE32;
	switch (type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(u, ri, rec, size);
	case PERF_RECORD_LOST:
		if (trailer_time(rec, size, 24, &t))
			return 0;
		e.kind = K_LOST;
		e.aux = get64(rec + 16);
		e.pid = e.tid = NONE32;
		/* the loss began after the last event this ring gave */
		e.time = r->last_time ? r->last_time : t;
		r->last_time = t;
		u->st.lost += e.aux;
		r->lost_reported += e.aux;
		u->warnings |= MT_UPROBE_W_LOST;
		return stage(u, &e, 0, NULL, 0);
	case PERF_RECORD_COMM:
		if (trailer_time(rec, size, 16, &t))
			return 0;
		r->last_time = e.time = t;
		e.kind = K_COMM;
		e.pid = get32(rec + 8);
		e.tid = get32(rec + 12);
		e.pad = (misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
		return stage(u, &e, 0, (const char *)rec + 16,
			     strnlen((const char *)rec + 16, size - 16 - 24));
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (trailer_time(rec, size, 32, &t))
			return 0;
		r->last_time = t;
		e.kind = type == PERF_RECORD_FORK ? K_FORK : K_EXIT;
		e.pid = get32(rec + 8);
		e.tid = get32(rec + 16);
		e.time = get64(rec + 24);
		return stage(u, &e, (uint64_t)get32(rec + 12) << 32 | get32(rec + 20),
			     NULL, 0);
	case PERF_RECORD_MMAP2:
		if (trailer_time(rec, size, 72, &t))
			return 0;
		r->last_time = e.time = t;
		if (!(get32(rec + 64) & PROT_EXEC))
			return 0;
		e.kind = K_MMAP;
		e.pid = get32(rec + 8);
		e.tid = get32(rec + 12);
		e.ip = get64(rec + 16);
		e.aux = get64(rec + 24);
		return stage(u, &e, get64(rec + 32), (const char *)rec + 72,
			     strnlen((const char *)rec + 72, size - 72 - 24));
	default:
		return 0;
	}
}

static int read_ring(struct mt_uprobe *u, uint32_t ri)
{
	struct mt_uprobe_ring *r = &u->rings[ri];
	struct perf_event_mmap_page *pg = r->base;
	unsigned char *data;
	uint64_t head, tail;
	int err = 0;

	if (!pg)
		return 0;
	data = (unsigned char *)r->base + u->page_size;
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	while (!err && tail < head) {
		size_t at = (size_t)(tail % r->data_size);
		struct perf_event_header h;
		const unsigned char *rec;

		/* records are 8-byte aligned: a header never wraps */
		memcpy(&h, data + at, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break; /* cannot happen; give up on this ring's rest */
		if (at + h.size <= r->data_size) {
			rec = data + at;
		} else {
			size_t first = r->data_size - at;

			if (mt_grow(&r->tmp, &r->tmpcap, h.size, 1)) {
				err = MT_ENOMEM;
				break;
			}
			memcpy(r->tmp, data + at, first);
			memcpy(r->tmp + first, data, h.size - first);
			rec = r->tmp;
		}
		err = on_record(u, ri, rec, h.size);
		tail += h.size;
	}
	if (tail < head && !err)
		tail = head;
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return err;
}

/* ---- putting events in order ---- */

static int cmp_staged(const void *a, const void *b)
{
	const struct mt_uprobe_staged *x = a, *y = b;

	MT_CMP_BY(x->ev.time, y->ev.time);
	return MT_CMP(x->seq, y->seq);
}

static int keep(struct mt_uprobe *u, const struct ev *e)
{
	struct mt_uprobe_ring *r = &u->rings[e->ring];

	if (r->len < r->cap) {
		if (mt_grow(&r->v, &r->alloc, r->len + 1, sizeof(*r->v)))
			return MT_ENOMEM;
		r->v[r->len++] = *e;
	} else {
		r->v[r->start] = *e;
		r->start = (r->start + 1) % r->cap;
		r->overwritten++;
		u->st.overwritten++;
	}
	return 0;
}

/* e, a call of the trigger (its return, dur after the call, with
 * opts.slower_ns): the hit, or (opts.every_hit) one more queued, unless
 * opts.hit_filter says it is none. */
static void hit(struct mt_uprobe *u, const struct mt_uprobe_staged *s, uint64_t dur)
{
	const struct ev *e = &s->ev;
	struct mt_uprobe_hit h;

	if (!u->opts.every_hit && u->triggered)
		return;
	memset(&h, 0, sizeof(h));
	h.time = e->time;
	h.pid = e->pid;
	h.tid = e->tid;
	h.cpu = (uint32_t)u->rings[e->ring].cpu;
	h.dur = dur;
	h.has_args = s->has_args;
	h.rdi = s->rdi;
	h.rsi = s->rsi;
	if (u->opts.hit_filter && !u->opts.hit_filter(u->opts.hit_filter_arg, &h))
		return;
	if (!u->opts.every_hit) {
		u->triggered = 1;
		u->hit = h;
	} else if (u->hitq_len == MT_UPROBE_HIT_QUEUE) {
		u->st.hits_dropped++;
		u->warnings |= MT_UPROBE_W_HITS;
	} else {
		u->hitq[(u->hitq_start + u->hitq_len++) % MT_UPROBE_HIT_QUEUE] = h;
	}
}

/*
 * One event, in time order. Return probes nest at most 64 deep per thread
 * (the kernel's MAX_URETPROBE_DEPTH): deeper calls get no return event, so
 * their call events are left out too, and all stacks stay whole. Each
 * thread's open calls of functions with return probes are tracked; a
 * return pops to its call, dropping calls left by longjmp as the kernel
 * drops their return instances.
 */
static int process(struct mt_uprobe *u, struct mt_uprobe_staged *s)
{
	struct ev *e = &s->ev;
	struct mt_uprobe_thread *t;
	const struct mt_uprobe_probe *p;
	uint32_t k;

	if (e->kind != K_ENTRY && e->kind != K_RETURN && e->kind != K_LOST)
		return uprobe_side_event(u, s);
	if (e->kind != K_LOST &&
	    (!uprobe_traced(u, e->pid) || e->pid == u->exec_pending)) {
		u->st.foreign++;
		return 0;
	}
	if (u->triggered && e->time > u->hit.time) {
		u->st.after_trigger++;
		return 0;
	}
	if (e->time < u->done_time) {
		u->st.late++;
		u->warnings |= MT_UPROBE_W_LATE;
	} else {
		u->done_time = e->time;
	}
	if (e->kind == K_LOST)
		return keep(u, e);
	t = uprobe_thread_get(u, e->tid, e->pid);
	if (!t || uprobe_comm_from_proc(u, t))
		return MT_ENOMEM;
	p = &u->probes[e->probe];
	if (e->kind == K_ENTRY && (p->flags & MT_UPROBE_RETURN)) {
		if (t->depth >= MT_UPROBE_MAX_DEPTH) {
			u->st.deep++;
			u->warnings |= MT_UPROBE_W_DEEP;
			return 0;
		}
		t->stack[t->depth].probe = e->probe;
		t->stack[t->depth].ip = e->ip;
		t->stack[t->depth].time = e->time;
		t->depth++;
	} else if (e->kind == K_RETURN) {
		for (k = t->depth; k > 0; k--)
			if (t->stack[k - 1].probe == e->probe)
				break;
		if (k > 0) {
			uint64_t called = t->stack[k - 1].time;

			e->aux = t->stack[k - 1].ip;
			t->depth = k - 1;
			if ((int)e->probe == u->trigger_probe && u->opts.slower_ns &&
			    e->time >= called && e->time - called >= u->opts.slower_ns)
				hit(u, s, e->time - called);
		}
	}
	if (e->kind == K_ENTRY && (int)e->probe == u->trigger_probe && !u->opts.slower_ns)
		hit(u, s, 0);
	u->st.events++;
	return keep(u, e);
}

/* Read every ring; then take the events older than the reorder window
 * (all of them when final) in time order. */
int uprobe_drain(struct mt_uprobe *u, int final)
{
	uint64_t start = uprobe_now_ns(), upto;
	size_t i, n;
	int err = 0;

	for (i = 0; !err && i < u->nrings; i++)
		err = read_ring(u, (uint32_t)i);
	if (err)
		return err;
	if (!u->nstaged)
		return 0;
	qsort(u->staged, u->nstaged, sizeof(*u->staged), cmp_staged);
	upto = start - (uint64_t)u->opts.reorder_ms * 1000000u;
	for (n = 0; n < u->nstaged; n++) {
		if (!final && u->staged[n].ev.time > upto)
			break;
		err = process(u, &u->staged[n]);
		free(u->staged[n].str);
		u->staged[n].str = NULL;
		if (err) {
			n++;
			break;
		}
	}
	memmove(u->staged, u->staged + n, (u->nstaged - n) * sizeof(*u->staged));
	u->nstaged -= n;
	return err;
}

/* Losses at the end of a ring, which no PERF_RECORD_LOST reported: each
 * probe event counts its own lost samples. */
int uprobe_unreported_losses(struct mt_uprobe *u)
{
	size_t i;
	int err = 0;

	for (i = 0; i < u->npevs; i++) {
		const struct mt_uprobe_pev *pe = &u->pevs[i];
		uint64_t v[2];

		if (pe->kind != PEV_SIDE && !u->no_format_lost &&
		    read(pe->fd, v, sizeof(v)) == (ssize_t)sizeof(v))
			u->rings[pe->ring].lost_counted += v[1];
	}
	for (i = 0; !err && i < u->nrings; i++) {
		struct mt_uprobe_ring *r = &u->rings[i];
		struct ev e = { .kind = K_LOST };

		if (r->lost_counted <= r->lost_reported)
			continue;
		e.aux = r->lost_counted - r->lost_reported;
		e.time = r->last_time;
		e.pid = e.tid = e.probe = NONE32;
		e.ring = (uint16_t)i;
		u->st.lost += e.aux;
		u->warnings |= MT_UPROBE_W_LOST;
		if (!u->triggered || e.time <= u->hit.time)
			err = keep(u, &e);
	}
	return err;
}
