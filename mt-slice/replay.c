/*
 * The replay: the slice events a first pass noted (replay_note), sorted on
 * disk by (thread, time, file order) (common/extsort.h), and
 * replayed one thread at a time through Perfetto's slice tracker
 * (importers/common/slice_tracker.cc; docs/fxt.md 2.6), which gives every
 * slice its end and depth. The decision for each event, one byte an event
 * in file order, goes to a temporary file that the second pass reads as it
 * goes (replay_next). Memory is bounded by the threads, the stack depth and
 * the fixed buffers (SORT_RUN records in the sort, SORT_FANIN run buffers
 * in a merge: extsort.h).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "extsort.h"
#include "fxtread.h"
#include "nest.h"
#include "slice.h"
#include "stream.h"
#include "tidmap.h"
#include "cmp.h"
#include "banned.h"

struct srec {
	uint64_t ts, end, seq; /* ns; end: a complete event's */
	uint32_t th;
	uint8_t type, match;   /* match: the name matches --match */
};

#define SORT_RUN (1u << 15) /* records sorted in memory at a time */
#define SORT_FANIN 32       /* runs merged at a time */

static struct mt_extsort fx_sort;
static FILE *fx_dec;
static uint64_t fx_seq;
static int64_t fx_max_ts;

static struct replay_counts counts;

struct replay_counts replay_counts(void)
{
	return counts;
}

static int by_thread_start(const void *a, const void *b)
{
	const struct srec *x = a, *y = b;

	MT_CMP_BY(x->th, y->th);
	MT_CMP_BY(x->ts, y->ts);
	return MT_CMP(x->seq, y->seq);
}

static void sort_check(int err)
{
	if (err)
		die_mt(err, "sorting the slice events in a temporary file");
}

void replay_note(uint32_t th, unsigned type, uint64_t ts, uint64_t end,
		 int match)
{
	struct srec r;

	if (!fx_seq)
		sort_check(mt_extsort_init(&fx_sort, sizeof(r), by_thread_start,
					   SORT_RUN, SORT_FANIN));
	memset(&r, 0, sizeof(r));
	r.ts = ts;
	r.end = end;
	r.seq = fx_seq++;
	r.th = th;
	r.type = (uint8_t)type;
	r.match = (uint8_t)match;
	sort_check(mt_extsort_add(&fx_sort, &r));
}

/* threads of the first pass, by (pid, tid) */
static struct mt_tidmap cth_ids;

uint32_t replay_thread(uint64_t pid, uint64_t tid)
{
	uint32_t i;
	int is_new;

	/* Perfetto keeps pid and tid as 32 bits (UpdateThread) */
	if (mt_tidmap_get(&cth_ids, (uint32_t)pid, (uint32_t)tid, &i, &is_new))
		die(MT_EXIT_SYSTEM, "out of memory");
	return i;
}
/* ---- the decisions: one byte an event, written through a window ---- */

/*
 * With --between, a decision also carries the end of a begin's slice
 * (MT_NONE64: it never ends), which the second pass needs to cut the slice
 * into its regions when it meets the begin: 9 bytes an event, the byte and
 * the end (host order: the file never leaves the process).
 */
#define DEC_WIN (1u << 13)
#define DEC_NWIN 8
#define DEC_MAXSZ 9
static size_t dec_sz = 1; /* bytes a decision */
static struct dec_window {
	uint64_t base; /* UINT64_MAX: unused */
	uint64_t used; /* when last used, for the least recently used */
	unsigned char b[DEC_WIN * DEC_MAXSZ];
} dec_w[DEC_NWIN];
static uint64_t dec_clock;

static size_t dec_len(uint64_t base)
{
	return (counts.nevents - base < DEC_WIN ?
		(size_t)(counts.nevents - base) : DEC_WIN) * dec_sz;
}

static void dec_flush(void)
{
	size_t i;

	for (i = 0; i < DEC_NWIN; i++)
		if (dec_w[i].used && dec_w[i].base != UINT64_MAX)
			tmp_io(1, fx_dec, dec_w[i].b, dec_len(dec_w[i].base),
			    dec_w[i].base * dec_sz);
}

/* Slices are decided in (thread, start) order, which follows file order
 * closely on each thread, at a few places at once (a begin and its end
 * stand far apart): a few windows of the file are kept, the least recently
 * used one written back and read again where a decision falls outside. */
static void dec_put_end(uint64_t seq, unsigned char d, uint64_t end)
{
	uint64_t base = seq / DEC_WIN * DEC_WIN;
	struct dec_window *w = &dec_w[0];
	size_t i;

	for (i = 0; i < DEC_NWIN; i++) {
		if (dec_w[i].used && dec_w[i].base == base) {
			w = &dec_w[i];
			goto found;
		}
		if (dec_w[i].used < w->used)
			w = &dec_w[i];
	}
	if (w->used)
		tmp_io(1, fx_dec, w->b, dec_len(w->base), w->base * dec_sz);
	w->base = base;
	tmp_io(0, fx_dec, w->b, dec_len(base), base * dec_sz);
found:
	w->used = ++dec_clock;
	w->b[(seq - base) * dec_sz] = d;
	if (dec_sz > 1)
		memcpy(&w->b[(seq - base) * dec_sz + 1], &end, sizeof(end));
}

static void dec_put(uint64_t seq, unsigned char d)
{
	dec_put_end(seq, d, MT_NONE64);
}

/* ---- the replay: Perfetto's slice tracker (common/nest.h) ---- */

#define NOSEQ UINT64_MAX

/* what a frame of the stack carries */
struct rframe {
	uint64_t bseq, eseq; /* eseq: the end that closed it */
	uint8_t type;
	uint8_t pmatch;   /* a match, if its end keeps it in the window */
	uint8_t in_match; /* inside a match */
	uint8_t holds;    /* holds a match that is kept */
};

static int dec_depth_only; /* the mt stream: only --max-depth is decided */
static struct mt_nest nest;
static uint32_t rth = UINT32_MAX;

static int depth_ok(const struct slice *sl, size_t depth)
{
	return !sl->have_max_depth || (int64_t)depth < sl->max_depth;
}

static struct rframe *rframe(size_t i)
{
	return mt_nest_data(&nest, i);
}

/*
 * The top frame popped: decide its slice, now that its end is known (or
 * that it never ends). A slice is kept when it is in the window, long
 * enough, shallow enough and, with --match, a match, inside one or holding
 * one. Its ancestors are the frames below it: they are still there, as the
 * tracker pops only the top. Instants are kept by their time alone.
 */
static void rpop(void *ctx, struct mt_nest *n)
{
	const struct slice *sl = ctx;
	size_t depth = n->n, i;
	const struct rframe *f = rframe(depth);
	uint64_t s = n->f[depth].start, e = n->f[depth].end;
	int ended = e != MT_NEST_PENDING, in_window, is_match;
	unsigned char d = D_DROP;

	if (dec_depth_only) {
		if (f->type != MT_FXT_EV_INSTANT && depth_ok(sl, depth))
			dec_put(f->bseq, D_KEEP);
		return;
	}
	if (f->type == MT_FXT_EV_INSTANT) {
		if (time_kept(sl, s))
			dec_put(f->bseq, D_KEEP);
		return;
	}
	if (sl->have_between)
		in_window = between_meets(s, ended ? e : MT_NONE64);
	else
		in_window = s < sl->win_to &&
			    (s >= sl->win_from || e > sl->win_from);
	if (in_window && ended && e - s < sl->min_dur) {
		counts.nshort++;
		return;
	}
	is_match = f->pmatch && in_window;
	if (is_match)
		for (i = depth; i-- > 0 && !rframe(i)->holds;)
			rframe(i)->holds = 1;
	if (in_window && depth_ok(sl, depth) &&
	    (!sl->match_rx.re || is_match || f->in_match || f->holds))
		d = !ended && sl->win_to != MT_NONE64 &&
		    (int64_t)sl->win_to <= fx_max_ts ? D_CLOSE : D_KEEP;
	if (d == D_DROP)
		return;
	if (sl->have_between) {
		/* the begin cuts the slice into its regions; its end stays
		 * where the last piece ends with it */
		dec_put_end(f->bseq, D_KEEP, ended ? e : MT_NONE64);
		if (f->eseq != NOSEQ && between_ends_in(s, e))
			dec_put(f->eseq, D_KEEP);
		return;
	}
	dec_put(f->bseq, d);
	if (f->eseq != NOSEQ)
		dec_put(f->eseq, D_KEEP);
}

static void rpush(const struct slice *sl, const struct srec *r,
		  uint64_t end)
{
	size_t depth = nest.n;
	int in_match = depth && (rframe(depth - 1)->in_match ||
				 rframe(depth - 1)->pmatch);
	struct rframe *f;

	if (mt_nest_push(&nest, r->ts, end))
		die(MT_EXIT_SYSTEM, "out of memory");
	f = rframe(depth);
	f->bseq = r->seq;
	f->eseq = NOSEQ;
	f->type = r->type;
	f->pmatch = r->match && depth_ok(sl, depth) && r->ts < sl->win_to;
	f->in_match = (uint8_t)in_match;
}

/* SliceTracker::End with no name: the top-most begun slice takes the end,
 * and is popped if it is the top. */
static void replay_end(const struct srec *r)
{
	size_t i;

	if (!mt_nest_find_begun(&nest, r->ts, &i))
		return; /* an end with no begin open: ignored */
	rframe(i)->eseq = r->seq;
	mt_nest_set_end(&nest, i, r->ts);
}

static void replay(const struct slice *sl, const struct srec *r)
{
	if (r->th != rth) {
		mt_nest_clear(&nest);
		rth = r->th;
	}
	switch (r->type) {
	case MT_FXT_EV_END:
		replay_end(r);
		return;
	case MT_FXT_EV_BEGIN:
		if (mt_nest_close(&nest, r->ts, MT_NEST_PENDING, NULL))
			rpush(sl, r, MT_NEST_PENDING);
		return;
	case MT_FXT_EV_COMPLETE:
		if (mt_nest_close(&nest, r->ts, r->end - r->ts, NULL))
			rpush(sl, r, r->end);
		return;
	default: /* an instant: Scoped with duration 0 */
		if (mt_nest_close(&nest, r->ts, 0, NULL))
			rpush(sl, r, r->ts);
		return;
	}
}

void replay_decide(const struct slice *sl, int depth_only, int64_t max_ts)
{
	static const struct mt_nest_ops ops = { .pop = rpop };
	const void *r;
	int got;

	dec_depth_only = depth_only;
	fx_max_ts = max_ts;
	if (!fx_seq)
		sort_check(mt_extsort_init(&fx_sort, sizeof(struct srec),
					   by_thread_start, SORT_RUN, SORT_FANIN));
	sort_check(mt_extsort_sort(&fx_sort));
	fx_dec = tmp_open();
	counts.nevents = fx_seq;
	dec_sz = sl->have_between && !depth_only ? DEC_MAXSZ : 1;
	if (ftruncate(fileno(fx_dec), (off_t)(fx_seq * dec_sz)))
		die_errno(MT_EXIT_SYSTEM, "a temporary file");
	/* a ctx that is not const: rpop only reads the slice */
	mt_nest_init(&nest, sizeof(struct rframe), &ops, (void *)sl);
	while ((got = mt_extsort_next(&fx_sort, &r)) > 0)
		replay(sl, r);
	sort_check(got);
	mt_nest_clear(&nest);
	counts.nsteps = nest.steps;
	mt_nest_release(&nest);
	dec_flush();
	mt_extsort_release(&fx_sort);
	fx_seq = 0;
}

static unsigned char dec_buf[(1 << 16) * DEC_MAXSZ];
static size_t dec_pos, dec_len_;

int replay_next_end(uint64_t *seq, uint64_t *end)
{
	const unsigned char *p;

	if (seq)
		*seq = fx_seq;
	if (dec_pos == dec_len_) {
		size_t k = sizeof(dec_buf) / dec_sz;

		if (fx_seq + k > counts.nevents)
			k = (size_t)(counts.nevents - fx_seq);
		if (!k)
			return D_DROP;
		tmp_io(0, fx_dec, dec_buf, k * dec_sz, fx_seq * dec_sz);
		dec_pos = 0;
		dec_len_ = k * dec_sz;
	}
	fx_seq++;
	p = dec_buf + dec_pos;
	dec_pos += dec_sz;
	if (end) {
		*end = MT_NONE64;
		if (dec_sz > 1)
			memcpy(end, p + 1, sizeof(*end));
	}
	return p[0];
}

int replay_next(uint64_t *seq)
{
	return replay_next_end(seq, NULL);
}
