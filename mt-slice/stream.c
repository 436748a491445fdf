/*
 * mt-slice on an mt stream: the records of the window and the threads
 * kept, the spans clipped to the window, long enough and, with --match,
 * related to a match.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "extsort.h"
#include "fxtread.h"
#include "slice.h"
#include "stream.h"
#include "tidtable.h"
#include "cmp.h"
#include "banned.h"

static struct mt_reader in;
static struct mt_writer out;
static unsigned long long n_in, n_kept, n_clipped, n_short;

/* ---- spans: clipped at the edges, parents first on equal starts ---- */

/*
 * Spans arrive as mt-stacks writes them, when they end, parents first among
 * equal starts. Clipping gives every span that crosses the window's start
 * the same start; those are held, per thread, and written at the end
 * ordered by depth, outermost first. They are the frames open at the
 * window's start: their number is bounded by the stacks' depth.
 */
/*
 * The spans that start at a window's (or a region's) start are held in a
 * sort on disk (common/extsort.h), keyed by that start, thread, depth and
 * arrival, and written at the end: outermost first among those, as they
 * must be. Memory stays bounded whatever the number of regions.
 */
struct held {
	uint64_t from, seq;
	struct mt_span s;
};

static struct mt_extsort held;
static uint64_t nheld;

static void check(int err)
{
	if (err)
		die_mt(err, "writing the stream");
}

static void held_check(int err)
{
	if (err)
		die_mt(err, "sorting spans in a temporary file");
}

static int by_thread_depth(const void *a, const void *b)
{
	const struct held *hx = a, *hy = b;
	const struct mt_span *x = &hx->s, *y = &hy->s;

	MT_CMP_BY(hx->from, hy->from);
	MT_CMP_BY(x->pid, y->pid);
	MT_CMP_BY(x->tid, y->tid);
	MT_CMP_BY(x->depth, y->depth);
	return MT_CMP(hx->seq, hy->seq);
}

static void hold(uint64_t from, const struct mt_span *s)
{
	struct held h;

	if (!nheld)
		held_check(mt_extsort_init(&held, sizeof(h), by_thread_depth,
					   1u << 12, 32));
	memset(&h, 0, sizeof(h));
	h.from = from;
	h.seq = nheld++;
	h.s = *s;
	held_check(mt_extsort_add(&held, &h));
}

static void flush_held(void)
{
	const void *p;
	int got;

	if (!nheld)
		return;
	held_check(mt_extsort_sort(&held));
	while ((got = mt_extsort_next(&held, &p)) > 0)
		check(mt_write_span(&out, &((const struct held *)p)->s));
	held_check(got);
	mt_extsort_release(&held);
	n_kept += nheld;
	nheld = 0;
}

/* Write a kept span, or hold it when it starts at the window's start; with
 * --between, its pieces in the regions it meets, clipped to them. */
static void emit_span(const struct slice *sl, const struct mt_span *s)
{
	uint64_t i, from, to;

	if (!sl->have_between) {
		if (s->start == sl->win_from && sl->have_from) {
			hold(sl->win_from, s);
			return;
		}
		check(mt_write_span(&out, s));
		n_kept++;
		return;
	}
	i = between_first(s->start);
	while (between_piece(s->start, s->end, &i, &from, &to)) {
		struct mt_span p = *s;

		if (p.start < from) {
			p.start = from;
			p.flags |= MT_SF_CLIPSTART;
		}
		if (p.end > to) {
			p.end = to;
			p.flags |= MT_SF_CLIPEND;
		}
		if (p.flags & ~s->flags)
			n_clipped++;
		if (p.start == from) {
			hold(from, &p);
			continue;
		}
		check(mt_write_span(&out, &p));
		n_kept++;
	}
}

/* ---- --match: matching spans, their ancestors and descendants ---- */

/*
 * Spans arrive when they end. A span's ancestors end after it: a span is
 * one when it contains the thread's last match and is shallower (an
 * ancestor of an earlier match contains the last one too, so only that
 * one is remembered). Its descendants ended
 * before it: the spans not kept so far go to a spill file, chained per
 * thread from the newest back, and a match walks back along its thread's
 * chain through the spans that ended since it started, writing them
 * (newest first: parents before children among equal starts) and cutting
 * them off the chain. Memory stays bounded by the threads; the spill file
 * grows with the spans not kept.
 */
static FILE *spill;
static uint64_t spill_end;

struct mthread {
	uint32_t pid, tid;
	uint64_t chain;       /* offset + 1 of the newest spilled span, 0: none */
	int has_match;
	uint64_t match_start, match_end; /* the last match */
	int32_t match_depth;
	uint64_t matches;     /* offset + 1 of the newest match kept, 0: none */
};

static struct mt_tidtable mthreads; /* of struct mthread */

static struct mthread *mthread_get(uint32_t pid, uint32_t tid)
{
	struct mthread *t;
	int is_new;

	if (mt_tidtable_get(&mthreads, pid, tid, &t, &is_new))
		die(MT_EXIT_SYSTEM, "out of memory");
	if (is_new) {
		t->pid = pid;
		t->tid = tid;
	}
	return t;
}

struct spilled {
	struct mt_span s;
	uint64_t prev; /* offset + 1 of the thread's previous one, 0: none */
};

static uint64_t *skip;
static size_t skip_cap;
static struct mt_span *anc;
static size_t anc_cap;

/* The spill file holds this process's own structs: it never leaves it. */
static void spill_write(uint64_t at, const struct spilled *r)
{
	if (fseeko(spill, (off_t)at, SEEK_SET) || fwrite(r, sizeof(*r), 1, spill) != 1)
		die_errno(MT_EXIT_SYSTEM, "--match: writing the temporary file");
}

static void spill_read(uint64_t at, struct spilled *r)
{
	if (fseeko(spill, (off_t)at, SEEK_SET) || fread(r, sizeof(*r), 1, spill) != 1)
		die_errno(MT_EXIT_SYSTEM, "--match: reading the temporary file");
}

static void spill_open(void)
{
	if (!spill) {
		spill = tmpfile();
		if (!spill)
			die_errno(MT_EXIT_SYSTEM, "--match: a temporary file");
	}
}

static void spill_span(struct mthread *t, const struct mt_span *s)
{
	struct spilled r = { *s, t->chain };

	spill_open();
	spill_write(spill_end, &r);
	t->chain = spill_end + 1;
	spill_end += sizeof(r);
}

static int name_matches(const struct slice *sl, uint32_t name)
{
	size_t len;
	const char *str = mt_reader_str(&in, name, &len);

	if (!str) {
		str = "[unknown]";
		len = strlen(str);
	}
	return mt_regex_match_len(&sl->match_rx, str, len);
}

/*
 * The walk back meets spans newest first. Spans that start together stand
 * together in the input, parent first; so each run of them is written in
 * input order, which keeps parents first.
 */
static struct mt_span *eq_run;
static size_t nrun, run_cap;

static void run_flush(const struct slice *sl)
{
	while (nrun)
		emit_span(sl, &eq_run[--nrun]);
}

static void run_add(const struct slice *sl, const struct mt_span *s)
{
	if (nrun && eq_run[0].start != s->start)
		run_flush(sl);
	grow_or_die(&eq_run, &run_cap, nrun, sizeof(*eq_run));
	eq_run[nrun++] = *s;
}

/* a inside b, intervals half-open (a starting where b ends is outside,
 * unless b is zero-length there too) */
static int inside(const struct mt_span *a, const struct mt_span *b)
{
	return b->start <= a->start && a->end <= b->end &&
	       !(a->start == b->end && b->start < b->end) && a->depth > b->depth;
}

/* Whether s contains a kept match or lies in one: the matches that ended
 * since s began are looked at. */
static int related_to_a_match(struct mthread *t, const struct mt_span *s)
{
	uint64_t at = t->matches;
	struct spilled m;

	while (at) {
		spill_read(at - 1, &m);
		if (m.s.end < s->start)
			break;
		if (inside(&m.s, s) || inside(s, &m.s))
			return 1;
		at = m.prev;
	}
	return 0;
}

static void match_span(const struct slice *sl, const struct mt_span *s)
{
	struct mthread *t = mthread_get(s->pid, s->tid);

	if (name_matches(sl, s->name)) {
		struct spilled r;
		size_t nskip = 0, nanc = 0;

		/* walk back over the spans that ended since it began */
		while (t->chain) {
			uint64_t at = t->chain - 1;

			spill_read(at, &r);
			if (r.s.end < s->start ||
			    (r.s.end == s->start && r.s.start < s->start))
				break;
			t->chain = r.prev;
			if (r.s.depth > s->depth && r.s.start >= s->start &&
			    r.s.end <= s->end &&
			    !(r.s.start == s->end && s->start < s->end)) {
				run_add(sl, &r.s); /* a descendant */
				continue;
			}
			if (r.s.depth < s->depth && r.s.start <= s->start &&
			    r.s.end >= s->end) {
				/* a parent that starts with it, written
				 * before it: keep, outermost first */
				grow_or_die(&anc, &anc_cap, nanc, sizeof(*anc));
				anc[nanc++] = r.s;
				continue;
			}
			/* a zero-length neighbour at its start: keep it on
			 * the chain for an enclosing match */
			grow_or_die(&skip, &skip_cap, nskip, sizeof(*skip));
			skip[nskip++] = at;
		}
		run_flush(sl);
		while (nanc)
			emit_span(sl, &anc[--nanc]);
		emit_span(sl, s);
		/* put the ones left back, newest first */
		while (nskip) {
			uint64_t at = skip[--nskip];

			spill_read(at, &r);
			r.prev = t->chain;
			spill_write(at, &r);
			t->chain = at + 1;
		}
		t->has_match = 1;
		t->match_start = s->start;
		t->match_end = s->end;
		t->match_depth = s->depth;
		/* remembered for spans that arrive out of end order */
		spill_open();
		{
			struct spilled m = { *s, t->matches };

			spill_write(spill_end, &m);
			t->matches = spill_end + 1;
			spill_end += sizeof(m);
		}
		return;
	}
	if (t->has_match && s->depth < t->match_depth &&
	    s->start <= t->match_start && s->end >= t->match_end &&
	    !(t->match_start == s->end && s->start < s->end)) {
		emit_span(sl, s); /* an ancestor of the last match */
		return;
	}
	if (t->has_match && s->depth > t->match_depth &&
	    s->start >= t->match_start && s->end <= t->match_end &&
	    !(s->start == t->match_end && t->match_start < t->match_end)) {
		/* a descendant written after its parent: they start
		 * together */
		emit_span(sl, s);
		return;
	}
	if (related_to_a_match(t, s)) {
		/* related to an earlier match, not the last: held back by
		 * mt-stacks until its parent, or ending with a match */
		emit_span(sl, s);
		return;
	}
	spill_span(t, s);
}

static void span(struct slice *sl, const struct mt_span *in_s)
{
	struct mt_span s = *in_s;

	see_time(sl, s.start);
	if (!thread_kept(sl, s.pid, s.tid))
		return;
	if (sl->have_max_depth && !replay_next(NULL))
		return;
	if (s.end - s.start < sl->min_dur) {
		n_short++;
		return;
	}
	if (sl->have_between) {
		/* decided whole, as without it, then cut to the regions */
		if (!between_meets(s.start, s.end))
			return;
		if (sl->match_rx.re)
			match_span(sl, &s);
		else
			emit_span(sl, &s);
		return;
	}
	if (s.start >= sl->win_to)
		return;
	if (s.start < sl->win_from && s.end <= sl->win_from)
		return;
	if (s.start < sl->win_from) {
		s.start = sl->win_from;
		s.flags |= MT_SF_CLIPSTART;
	}
	if (sl->win_to != MT_NONE64 && s.end > sl->win_to) {
		s.end = sl->win_to;
		s.flags |= MT_SF_CLIPEND;
	}
	if (s.flags & (MT_SF_CLIPSTART | MT_SF_CLIPEND))
		n_clipped++;
	if (sl->match_rx.re)
		match_span(sl, &s);
	else
		emit_span(sl, &s);
}

/* ---- the mt stream: a first pass when the options need one ---- */

/*
 * A window relative to the start of the trace counts from the first span
 * (the earliest start: spans come when they end), as on the FXT file mt-fxt
 * writes from the stream; and --max-depth counts depth as Perfetto nests
 * that file (depth 0 is the outermost span of the thread; mt-stacks' own
 * depths count from where the thread's trace began, and again after each
 * reset). Both need the whole stream first: it is copied to a temporary
 * file on a first pass that finds the start and notes the spans (and the
 * instants mt-fxt writes on their threads, which nest among them) for the
 * same sort and replay as FXT input; the second pass reads the copy.
 */
static int stream_instant(const struct slice *sl, const struct mt_record *r)
{
	if (r->type == MT_REC_ERROR)
		return r->u.error.time != MT_NONE64 &&
		       thread_kept(sl, r->u.error.pid, r->u.error.tid);
	if (r->type != MT_REC_MARK)
		return 0;
	return r->u.mark.tid != MT_NONE32 && r->u.mark.time != MT_NONE64 &&
	       r->u.mark.kind != MT_MARK_PSB && r->u.mark.kind != MT_MARK_CBR &&
	       thread_kept(sl, r->u.mark.pid, r->u.mark.tid);
}

static uint64_t record_time(const struct mt_record *r)
{
	switch (r->type) {
	case MT_REC_SPAN:
		return r->u.span.start;
	case MT_REC_THREAD:
		return r->u.thread.time;
	case MT_REC_BRANCH:
		return r->u.branch.time;
	case MT_REC_ERROR:
		return r->u.error.time;
	case MT_REC_MARK:
		return r->u.mark.time;
	case MT_REC_SAMPLE:
		return r->u.sample.time;
	default:
		return MT_NONE64;
	}
}

static FILE *stream_copy;

static int stream_first_pass(struct slice *sl, int fd,
			     const unsigned char *magic, size_t len)
{
	struct mt_reader r1;
	struct mt_record r;
	uint64_t min_t = MT_NONE64, min_start = MT_NONE64;
	unsigned char buf[1 << 16];
	int got, err;

	stream_copy = tmp_open();
	if (len && fwrite(magic, len, 1, stream_copy) != 1)
		die_errno(MT_EXIT_SYSTEM, "the temporary file");
	for (;;) {
		ssize_t k = read(fd, buf, sizeof(buf));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", sl->in_name);
		if (!k)
			break;
		if (fwrite(buf, (size_t)k, 1, stream_copy) != 1)
			die_errno(MT_EXIT_SYSTEM, "the temporary file");
	}
	if (fflush(stream_copy) || lseek(fileno(stream_copy), 0, SEEK_SET))
		die_errno(MT_EXIT_SYSTEM, "the temporary file");
	if ((err = mt_reader_init_fd(&r1, fileno(stream_copy), NULL, 0)))
		die_mt(err, "%s", sl->in_name);
	while ((got = mt_reader_next(&r1, &r)) > 0) {
		uint64_t t = record_time(&r);

		if (t != MT_NONE64 && t < min_t)
			min_t = t;
		if (r.type == MT_REC_SPAN) {
			const struct mt_span *sp = &r.u.span;

			if (sp->start < min_start)
				min_start = sp->start;
			if (sl->have_between &&
			    !(sp->flags & (MT_SF_INFERRED | MT_SF_CLIPSTART))) {
				size_t nlen;
				const char *nm = mt_reader_str(&r1, sp->name, &nlen);

				if (!nm) {
					nm = "[unknown]";
					nlen = strlen(nm);
				}
				between_hit(sl, nm, nlen, sp->start);
			}
			if (sl->have_max_depth &&
			    thread_kept(sl, sp->pid, sp->tid))
				replay_note(replay_thread(sp->pid, sp->tid),
					   MT_FXT_EV_COMPLETE, sp->start,
					   sp->end < sp->start ? sp->start : sp->end, 0);
		} else if (sl->have_max_depth && stream_instant(sl, &r)) {
			const uint32_t pid = r.type == MT_REC_ERROR ?
				r.u.error.pid : r.u.mark.pid;
			const uint32_t tid = r.type == MT_REC_ERROR ?
				r.u.error.tid : r.u.mark.tid;

			replay_note(replay_thread(pid, tid), MT_FXT_EV_INSTANT, t, t, 0);
		}
	}
	if (got < 0)
		die_mt(got, "%s: byte offset 0x%llx", sl->in_name,
		       (unsigned long long)mt_reader_offset(&r1));
	mt_reader_release(&r1);
	if (min_start != MT_NONE64)
		see_time(sl, min_start);
	else if (min_t != MT_NONE64)
		see_time(sl, min_t);
	if (sl->have_between)
		between_regions(sl);
	if (sl->have_max_depth)
		replay_decide(sl, 1, -1);
	if (lseek(fileno(stream_copy), 0, SEEK_SET))
		die_errno(MT_EXIT_SYSTEM, "the temporary file");
	return fileno(stream_copy);
}

/* ---- main loop ---- */

static void keep(const struct mt_record *r)
{
	check(mt_write_raw(&out, r->raw, r->raw_len));
	n_kept++;
}

static void run(struct slice *sl)
{
	struct mt_record r;
	int got;

	while ((got = mt_reader_next(&in, &r)) > 0) {
		n_in++;
		switch (r.type) {
		case MT_REC_END:
			n_in--;
			break;
		case MT_REC_SPAN:
			span(sl, &r.u.span);
			break;
		case MT_REC_THREAD:
			see_time(sl, r.u.thread.time);
			if (thread_kept(sl, r.u.thread.pid, r.u.thread.tid))
				keep(&r);
			break;
		case MT_REC_BRANCH:
			see_time(sl, r.u.branch.time);
			if (thread_kept(sl, r.u.branch.pid, r.u.branch.tid) &&
			    time_kept(sl, r.u.branch.time))
				keep(&r);
			break;
		case MT_REC_ERROR:
			see_time(sl, r.u.error.time);
			if (sl->have_max_depth && stream_instant(sl, &r))
				replay_next(NULL); /* its decision is its time's */
			if (thread_kept(sl, r.u.error.pid, r.u.error.tid) &&
			    time_kept(sl, r.u.error.time))
				keep(&r);
			break;
		case MT_REC_MARK:
			see_time(sl, r.u.mark.time);
			if (sl->have_max_depth && stream_instant(sl, &r))
				replay_next(NULL);
			if ((r.u.mark.tid == MT_NONE32 ||
			     thread_kept(sl, r.u.mark.pid, r.u.mark.tid)) &&
			    time_kept(sl, r.u.mark.time))
				keep(&r);
			break;
		case MT_REC_SAMPLE:
			see_time(sl, r.u.sample.time);
			if (thread_kept(sl, r.u.sample.pid, r.u.sample.tid) &&
			    time_kept(sl, r.u.sample.time))
				keep(&r);
			break;
		default:
			/* strings, meta, and types this version does not know */
			keep(&r);
			break;
		}
	}
	if (got < 0)
		die_mt(got, "%s: byte offset 0x%llx", sl->in_name,
		       (unsigned long long)mt_reader_offset(&in));
	flush_held();
}

void stream_slice(struct slice *sl, int fd, const unsigned char *magic,
		  size_t len)
{
	int err;

	if (sl->have_max_depth || sl->have_between ||
	    (!sl->absolute && (sl->have_from || sl->have_to ||
			       sl->opt_dur != MT_NONE64))) {
		fd = stream_first_pass(sl, fd, magic, len);
		len = 0;
	}
	if ((err = mt_reader_init_fd(&in, fd, magic, len)))
		die_mt(err, "%s", sl->in_name);
	if ((err = mt_writer_init_fd(&out, STDOUT_FILENO)))
		die_mt(err, "starting the stream");
	mt_tidtable_init(&mthreads, sizeof(struct mthread));
	run(sl);
	check(mt_writer_finish(&out));
	if (sl->verbose || n_short)
		fprintf(stderr, "%s: %s: %llu records read, %llu written, %llu spans "
			"clipped, %llu shorter than --min-duration dropped\n",
			mt_progname(), sl->in_name, n_in, n_kept, n_clipped,
			n_short);
	if (sl->verbose && sl->have_between)
		fprintf(stderr, "%s: %s: %llu regions between %s and %s\n",
			mt_progname(), sl->in_name,
			(unsigned long long)between_count(), sl->start_pat,
			sl->stop_pat);
	mt_reader_release(&in);
	mt_writer_release(&out);
}
