/*
 * The patch backend's rings read back: see patch-rings.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "merge.h"
#include "patch-rings.h"
#include "shm.h"
#include "tsc.h"
#include "banned.h"

/* One ring being read: records pos .. end - 1 are left (of a slot taken
 * again, two cursors: its last thread's, then its thread's). */
struct patch_cursor {
	struct mtp_thread *th;   /* NULL: not in this pass */
	uint32_t pid, tid;
	char comm[16];
	const struct mtp_rec *ring;
	uint64_t pos, end;
	uint64_t time;      /* of the record at pos (valid) */
	uint32_t func, kind;
	uint32_t slot;      /* 2 * slot + (0 its last thread's, 1 its own) */
	int begun;          /* has a first record: its THREAD is due */
};

int patch_layout_check(const struct patch_layout *l)
{
	uint64_t slots;

	if (!l->base || !l->nrec || (l->nrec & (l->nrec - 1)) || l->nrec > (1ull << 32) ||
	    l->max_threads > (1u << 16) || l->threads_off > l->size ||
	    l->stride < sizeof(struct mtp_thread) + l->nrec * sizeof(struct mtp_rec) ||
	    l->stride > l->size || (l->threads_off | l->stride) % 8)
		return -1;
	slots = (l->size - l->threads_off) / l->stride;
	return l->max_threads <= slots ? 0 : -1;
}

struct mtp_thread *patch_slot(const struct patch_layout *l, uint32_t i)
{
	return (struct mtp_thread *)(l->base + l->threads_off + (uint64_t)i * l->stride);
}

uint64_t patch_to_mono(uint32_t clock, uint64_t t, uint64_t tsc_a, uint64_t mono_a,
		       uint64_t tsc_b, uint64_t mono_b)
{
	return clock == MTP_CLOCK_TSC ? mt_tsc_to_mono(t, tsc_a, mono_a, tsc_b, mono_b) : t;
}

int patch_rings_init(struct patch_rings *r, const struct patch_layout *l)
{
	memset(r, 0, sizeof(*r));
	if (patch_layout_check(l)) {
		errno = EINVAL;
		return -1;
	}
	r->l = *l;
	r->taken = calloc(l->max_threads + 1, sizeof(*r->taken));
	r->stalled = calloc(2 * (size_t)l->max_threads + 1, sizeof(*r->stalled));
	r->gen_seen = calloc(l->max_threads + 1, sizeof(*r->gen_seen));
	if (!r->taken || !r->stalled || !r->gen_seen) {
		patch_rings_release(r);
		errno = ENOMEM;
		return -1;
	}
	mt_tsc_pair(&r->tsc_a, &r->mono_a);
	return 0;
}

void patch_rings_rewind(struct patch_rings *r)
{
	memset(r->taken, 0, r->l.max_threads * sizeof(*r->taken));
	memset(r->stalled, 0, 2 * (size_t)r->l.max_threads * sizeof(*r->stalled));
}

void patch_rings_release(struct patch_rings *r)
{
	free(r->taken);
	free(r->stalled);
	free(r->gen_seen);
	memset(r, 0, sizeof(*r));
}

/* Moves c to its next whole record (from pos): 1, or 0 at its end.
 * A record after until (not 0) ends the ring; partial, so does, once, a
 * record being written (stalled). Looks at each record once. */
static int next_whole(struct patch_pass *ps, struct patch_cursor *c)
{
	struct patch_rings *r = ps->r;
	uint64_t nrec = r->l.nrec;

	for (; c->pos < c->end; c->pos++) {
		const struct mtp_rec *rec = &c->ring[c->pos & (nrec - 1)];
		uint32_t k1 = __atomic_load_n(&rec->kind, __ATOMIC_ACQUIRE), k2, kind, func;
		uint64_t time;

		time = __atomic_load_n(&rec->time, __ATOMIC_RELAXED);
		func = __atomic_load_n(&rec->func, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		k2 = __atomic_load_n(&rec->kind, __ATOMIC_RELAXED);
		kind = MTP_REC_KIND_OF(k1);
		if (k1 != k2 || k1 != MTP_REC_KIND(kind, c->pos / nrec) ||
		    kind < MTP_CALL || kind > MTP_CUT || func >= ps->nfn) {
			if (ps->partial && r->stalled[c->slot] != c->pos + 1) {
				r->stalled[c->slot] = c->pos + 1;
				c->end = c->pos; /* the next pass looks again */
				return 0;
			}
			r->torn++;
			continue;
		}
		if (ps->until && time > ps->until) {
			c->end = c->pos;
			return 0;
		}
		c->func = func;
		c->kind = kind;
		c->time = time;
		return 1;
	}
	return 0;
}

/* Slot i's cursors, set up from what its slot says now (clamped). */
static void open_slot(struct patch_pass *ps, uint32_t i)
{
	struct patch_rings *r = ps->r;
	struct mtp_thread *th = patch_slot(&r->l, i);
	uint64_t nrec = r->l.nrec, head, start, prev_start, lo;
	uint32_t tid = __atomic_load_n(&th->tid, __ATOMIC_ACQUIRE), gen, prev_tid, pid, k;

	if (!tid)
		return; /* claimed, not yet named */
	gen = __atomic_load_n(&th->gen, __ATOMIC_ACQUIRE);
	start = __atomic_load_n(&th->start, __ATOMIC_RELAXED);
	prev_start = __atomic_load_n(&th->prev_start, __ATOMIC_RELAXED);
	prev_tid = __atomic_load_n(&th->prev_tid, __ATOMIC_RELAXED);
	pid = __atomic_load_n(&th->pid, __ATOMIC_RELAXED);
	head = __atomic_load_n(&th->head, __ATOMIC_ACQUIRE);
	if (start > head) /* written by the process: within what the ring holds */
		start = head;
	lo = head > nrec ? head - nrec : 0; /* older ones overwritten */
	/* a slot taken again since it was last read: the records from
	 * there to start are its last thread's */
	for (k = gen != r->gen_seen[i] && prev_tid ? 0 : 1; k < 2; k++) {
		struct patch_cursor *c = &ps->cur[2 * i + k];
		uint64_t want = r->taken[i];

		c->th = th;
		c->pid = pid;
		c->tid = k ? tid : prev_tid;
		memcpy(c->comm, k ? th->comm : th->prev_comm, sizeof(c->comm));
		c->comm[sizeof(c->comm) - 1] = '\0';
		c->ring = (const struct mtp_rec *)(th + 1);
		c->slot = 2 * i + k;
		c->end = k ? head : start;
		c->pos = k && want < start ? start : want;
		if (!k && c->pos < prev_start)
			c->pos = prev_start; /* older: no thread's any more */
		if (c->pos >= c->end) {
			c->pos = c->end;
			continue;
		}
		if (lo > c->pos) {
			/* overwritten since: what is left starts later */
			if (ps->partial)
				r->lost += lo - c->pos;
			c->pos = lo;
		}
		if (next_whole(ps, c)) {
			c->begun = 1;
			mt_merge_add(&ps->heap, c->slot, c->time);
		}
	}
	r->gen_seen[i] = gen;
}

/* A (TSC, CLOCK_MONOTONIC) pair for the TSC's rate: need ns at least
 * after r's (20 ms for a pass, 10 between drains, which free the slots of
 * threads that ended: every 10 ms), slept for when it is not. */
static void take_pair(const struct patch_rings *r, uint32_t clock, uint64_t need,
		      uint64_t *tsc, uint64_t *mono)
{
	mt_tsc_pair(tsc, mono);
	if (clock == MTP_CLOCK_TSC && *mono - r->mono_a < need) {
		struct timespec ts = { 0, (long)(need - (*mono - r->mono_a)) };

		nanosleep(&ts, NULL);
		mt_tsc_pair(tsc, mono);
	}
}

uint64_t patch_rings_take_pair(struct patch_rings *r, uint32_t clock, uint64_t t)
{
	uint32_t c = clock == MTP_CLOCK_TSC ? MTP_CLOCK_TSC : MTP_CLOCK_MONOTONIC;

	take_pair(r, c, 10000000u, &r->pair_tsc, &r->pair_mono);
	r->pair_set = 1;
	return patch_to_mono(c, t, r->tsc_a, r->mono_a, r->pair_tsc, r->pair_mono);
}

/* The length ns (signed) of CLOCK_MONOTONIC in TSC ticks, at the rate
 * from r's pair to (tsc_b, mono_b). */
static int64_t ticks_of(const struct patch_rings *r, uint64_t tsc_b, uint64_t mono_b, int64_t ns)
{
	__int128 d;

	if (mono_b == r->mono_a)
		return 0;
	d = (__int128)ns * (__int128)(tsc_b - r->tsc_a) / (__int128)(mono_b - r->mono_a);
	if (d > INT64_MAX)
		d = INT64_MAX;
	if (d < INT64_MIN)
		d = INT64_MIN;
	return (int64_t)d;
}

uint64_t patch_rings_raw_of(struct patch_rings *r, uint32_t clock, uint64_t mono)
{
	if (clock != MTP_CLOCK_TSC)
		return mono;
	take_pair(r, MTP_CLOCK_TSC, 10000000u, &r->pair_tsc, &r->pair_mono);
	r->pair_set = 1;
	return r->tsc_a + (uint64_t)ticks_of(r, r->pair_tsc, r->pair_mono,
					     (int64_t)(mono - r->mono_a));
}

uint64_t patch_rings_ticks(const struct patch_rings *r, uint32_t clock, uint64_t ns)
{
	uint64_t tsc_b, mono_b;
	int64_t t;

	if (clock != MTP_CLOCK_TSC)
		return ns;
	take_pair(r, MTP_CLOCK_TSC, 10000000u, &tsc_b, &mono_b);
	t = ticks_of(r, tsc_b, mono_b, ns > INT64_MAX ? INT64_MAX : (int64_t)ns);
	return t > 0 ? (uint64_t)t : 0;
}

int patch_pass_begin(struct patch_rings *r, struct patch_pass *ps, uint32_t nfn,
		     uint32_t clock, uint32_t claimed, int partial, uint64_t until)
{
	uint64_t need = partial ? 10000000u : 20000000u;
	uint32_t i;

	memset(ps, 0, sizeof(*ps));
	ps->r = r;
	ps->nfn = nfn;
	ps->clock = clock == MTP_CLOCK_TSC ? MTP_CLOCK_TSC : MTP_CLOCK_MONOTONIC;
	ps->partial = partial;
	ps->nth = claimed < r->l.max_threads ? claimed : r->l.max_threads;
	if (r->pair_set) { /* patch_rings_take_pair()'s */
		ps->tsc_b = r->pair_tsc;
		ps->mono_b = r->pair_mono;
		r->pair_set = 0;
	} else {
		take_pair(r, ps->clock, need, &ps->tsc_b, &ps->mono_b);
	}
	if (partial) {
		/* a millisecond before now, in the records' clock */
		uint64_t ms = ps->clock == MTP_CLOCK_TSC ?
			      (uint64_t)((__int128)(ps->tsc_b - r->tsc_a) * 1000000 /
					 (ps->mono_b - r->mono_a + 1)) : 1000000;
		uint64_t now = ps->clock == MTP_CLOCK_TSC ? ps->tsc_b : ps->mono_b;

		ps->until = until ? until : now > ms ? now - ms : 1;
	} else {
		ps->until = until;
	}
	ps->cur = calloc(2 * (size_t)ps->nth + 1, sizeof(*ps->cur));
	if (!ps->cur || mt_merge_init(&ps->heap, 2 * (size_t)ps->nth)) {
		free(ps->cur);
		memset(ps, 0, sizeof(*ps));
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < ps->nth; i++)
		open_slot(ps, i);
	return 0;
}

int patch_pass_next(struct patch_pass *ps, struct patch_event *ev)
{
	struct patch_rings *r = ps->r;
	struct patch_cursor *c;
	uint32_t slot;

	/* the THREADs first, in slot order */
	while (ps->next_thread < 2 * (size_t)ps->nth) {
		c = &ps->cur[ps->next_thread++];
		if (!c->begun)
			continue;
		memset(ev, 0, sizeof(*ev));
		ev->is_thread = 1;
		ev->pid = c->pid;
		ev->tid = c->tid;
		memcpy(ev->comm, c->comm, sizeof(ev->comm));
		return 1;
	}
	if (!mt_merge_top(&ps->heap, &slot))
		return 0;
	c = &ps->cur[slot];
	memset(ev, 0, sizeof(*ev));
	ev->pid = c->pid;
	ev->tid = c->tid;
	ev->func = c->func;
	ev->kind = c->kind;
	ev->time = patch_to_mono(ps->clock, c->time, r->tsc_a, r->mono_a, ps->tsc_b, ps->mono_b);
	c->pos++;
	if (next_whole(ps, c))
		mt_merge_next(&ps->heap, c->time);
	else
		mt_merge_drop(&ps->heap);
	return 1;
}

void patch_pass_end(struct patch_pass *ps)
{
	struct patch_rings *r = ps->r;
	uint32_t i;

	for (i = 0; i < ps->nth; i++) {
		struct patch_cursor *c = &ps->cur[2 * i + 1];

		if (!c->th)
			continue;
		r->taken[i] = c->pos; /* where it stopped */
		/* read out so far: the slot may be taken again once all of
		 * it is (drain) */
		if (__atomic_load_n(&c->th->gen, __ATOMIC_ACQUIRE) == r->gen_seen[i])
			__atomic_store_n(&c->th->drained, r->taken[i], __ATOMIC_RELEASE);
	}
	if (ps->partial) {
		/* the next pass's times from here: one line through the pairs */
		r->tsc_a = ps->tsc_b;
		r->mono_a = ps->mono_b;
	}
	free(ps->cur);
	mt_merge_release(&ps->heap);
	memset(ps, 0, sizeof(*ps));
}
