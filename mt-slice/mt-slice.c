/*
 * mt-slice: keep a time window, some threads, the longer spans of an mt
 * stream. See docs/mt-slice.1.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "die.h"
#include "duration.h"
#include "err.h"
#include "fxtread.h"
#include "fxtwrite.h"
#include "stream.h"
#include "tidmap.h"
#include "wire.h"
#include "banned.h"

#define USAGE "usage: mt-slice [-v] [--from time] [--to time] [--duration time] [--abs] [--min-duration time] [--pid list] [--tid list] [--max-depth n] [--match regex] [--gzip] [-o output] [file]\n"

static const char *in_name = "<stdin>";
static struct mt_reader in;
static struct mt_writer out;

static uint64_t opt_from, opt_to = MT_NONE64, opt_dur = MT_NONE64, min_dur;
static int have_from, have_to, absolute, have_max_depth, have_min;
static int32_t max_depth;
static uint64_t win_from, win_to; /* absolute, once the base is known */
static int have_base, verbose;
static unsigned long long n_in, n_kept, n_clipped, n_short;

/* ---- --pid and --tid lists ---- */

struct idlist {
	uint32_t *v;
	size_t n;
};

static struct idlist pids, tids;

static void parse_list(struct idlist *l, const char *s, const char *opt)
{
	char *end;

	while (*s) {
		unsigned long v;
		uint32_t *nv;

		errno = 0;
		v = strtoul(s, &end, 10);
		if (end == s || errno || v >= MT_NONE32 || (*end && *end != ','))
			die(MT_EXIT_USAGE, "%s: expected numbers separated by commas: %s",
			    opt, s);
		nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
		if (!nv)
			die(MT_EXIT_SYSTEM, "out of memory");
		l->v = nv;
		l->v[l->n++] = (uint32_t)v;
		s = *end ? end + 1 : end;
	}
}

static int in_list(const struct idlist *l, uint32_t id)
{
	size_t i;

	if (!l->n)
		return 1;
	for (i = 0; i < l->n; i++)
		if (l->v[i] == id)
			return 1;
	return 0;
}

static int thread_kept(uint32_t pid, uint32_t tid)
{
	return in_list(&pids, pid) && in_list(&tids, tid);
}

/* ---- the window ---- */

/* The first timestamp of the input is the start of the trace. */
static void see_time(uint64_t t)
{
	uint64_t base;

	if (have_base || t == MT_NONE64)
		return;
	have_base = 1;
	base = absolute ? 0 : t;
	win_from = have_from ? base + opt_from : 0;
	/* --duration alone: the window ends that long after the start */
	if (opt_dur != MT_NONE64)
		win_to = base + opt_from + opt_dur;
	else
		win_to = have_to ? base + opt_to : MT_NONE64;
}

static int time_kept(uint64_t t)
{
	if (t == MT_NONE64)
		return 1;
	return t >= win_from && t < win_to;
}

/* ---- spans: clipped at the edges, parents first on equal starts ---- */

/*
 * Spans arrive as mt-stacks writes them, when they end, parents first among
 * equal starts. Clipping gives every span that crosses the window's start
 * the same start; those are held, per thread, and written at the end
 * ordered by depth, outermost first. They are the frames open at the
 * window's start: their number is bounded by the stacks' depth.
 */
struct held {
	struct mt_span *v;
	size_t n, cap;
};

static struct held held;

static void hold(const struct mt_span *s)
{
	if (held.n == held.cap) {
		size_t cap = held.cap ? held.cap * 2 : 64;
		struct mt_span *v = realloc(held.v, cap * sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
		held.v = v;
		held.cap = cap;
	}
	held.v[held.n++] = *s;
}

static void check(int err)
{
	if (err)
		die_mt(err, "writing the stream");
}

static int by_thread_depth(const void *a, const void *b)
{
	const struct mt_span *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return 0;
}

static void flush_held(void)
{
	size_t i, j;

	/* insertion sort keeps equal keys in arrival order */
	for (i = 1; i < held.n; i++) {
		struct mt_span s = held.v[i];

		for (j = i; j > 0 && by_thread_depth(&held.v[j - 1], &s) > 0; j--)
			held.v[j] = held.v[j - 1];
		held.v[j] = s;
	}
	for (i = 0; i < held.n; i++)
		check(mt_write_span(&out, &held.v[i]));
	n_kept += held.n;
	held.n = 0;
}

/* Write a kept span, or hold it when it starts at the window's start. */
static void emit_span(const struct mt_span *s)
{
	if (s->start == win_from && have_from) {
		hold(s);
		return;
	}
	check(mt_write_span(&out, s));
	n_kept++;
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
static pcre2_code *match_re;
static pcre2_match_data *match_md;
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

static struct mthread *mthreads;
static size_t nmthreads, mthread_cap;
static struct mt_tidmap mthread_ids;

static struct mthread *mthread_get(uint32_t pid, uint32_t tid)
{
	uint32_t i;
	int is_new;

	if (mt_tidmap_get(&mthread_ids, pid, tid, &i, &is_new))
		die(MT_EXIT_SYSTEM, "out of memory");
	if (i >= mthread_cap) {
		size_t cap = mthread_cap ? mthread_cap * 2 : 64;
		struct mthread *v = realloc(mthreads, cap * sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
		mthreads = v;
		mthread_cap = cap;
	}
	if (is_new) {
		memset(&mthreads[i], 0, sizeof(mthreads[i]));
		mthreads[i].pid = pid;
		mthreads[i].tid = tid;
		nmthreads = i + 1;
	}
	return &mthreads[i];
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

static int name_matches(uint32_t name)
{
	size_t len;
	const char *str = mt_reader_str(&in, name, &len);
	int rc;

	if (!str) {
		str = "[unknown]";
		len = strlen(str);
	}
	rc = pcre2_match(match_re, (PCRE2_SPTR)str, len, 0, 0, match_md, NULL);
	return rc >= 0;
}

/*
 * The walk back meets spans newest first. Spans that start together stand
 * together in the input, parent first; so each run of them is written in
 * input order, which keeps parents first.
 */
static struct mt_span *eq_run;
static size_t nrun, run_cap;

static void run_flush(void)
{
	while (nrun)
		emit_span(&eq_run[--nrun]);
}

static void run_add(const struct mt_span *s)
{
	if (nrun && eq_run[0].start != s->start)
		run_flush();
	if (nrun == run_cap) {
		run_cap = run_cap ? run_cap * 2 : 16;
		eq_run = realloc(eq_run, run_cap * sizeof(*eq_run));
		if (!eq_run)
			die(MT_EXIT_SYSTEM, "out of memory");
	}
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

static void match_span(const struct mt_span *s)
{
	struct mthread *t = mthread_get(s->pid, s->tid);

	if (name_matches(s->name)) {
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
				run_add(&r.s); /* a descendant */
				continue;
			}
			if (r.s.depth < s->depth && r.s.start <= s->start &&
			    r.s.end >= s->end) {
				/* a parent that starts with it, written
				 * before it: keep, outermost first */
				if (nanc == anc_cap) {
					anc_cap = anc_cap ? anc_cap * 2 : 8;
					anc = realloc(anc, anc_cap * sizeof(*anc));
					if (!anc)
						die(MT_EXIT_SYSTEM, "out of memory");
				}
				anc[nanc++] = r.s;
				continue;
			}
			/* a zero-length neighbour at its start: keep it on
			 * the chain for an enclosing match */
			if (nskip == skip_cap) {
				skip_cap = skip_cap ? skip_cap * 2 : 8;
				skip = realloc(skip, skip_cap * sizeof(*skip));
				if (!skip)
					die(MT_EXIT_SYSTEM, "out of memory");
			}
			skip[nskip++] = at;
		}
		run_flush();
		while (nanc)
			emit_span(&anc[--nanc]);
		emit_span(s);
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
		emit_span(s); /* an ancestor of the last match */
		return;
	}
	if (t->has_match && s->depth > t->match_depth &&
	    s->start >= t->match_start && s->end <= t->match_end &&
	    !(s->start == t->match_end && t->match_start < t->match_end)) {
		/* a descendant written after its parent: they start
		 * together */
		emit_span(s);
		return;
	}
	if (related_to_a_match(t, s)) {
		/* related to an earlier match, not the last: held back by
		 * mt-stacks until its parent, or ending with a match */
		emit_span(s);
		return;
	}
	spill_span(t, s);
}

/* --max-depth on the stream: decided on a first pass (see below) */
static int fx_kept(void);

static void span(const struct mt_span *in_s)
{
	struct mt_span s = *in_s;

	see_time(s.start);
	if (!thread_kept(s.pid, s.tid))
		return;
	if (have_max_depth && !fx_kept())
		return;
	if (s.end - s.start < min_dur) {
		n_short++;
		return;
	}
	if (s.start >= win_to)
		return;
	if (s.start < win_from && s.end <= win_from)
		return;
	if (s.start < win_from) {
		s.start = win_from;
		s.flags |= MT_SF_CLIPSTART;
	}
	if (win_to != MT_NONE64 && s.end > win_to) {
		s.end = win_to;
		s.flags |= MT_SF_CLIPEND;
	}
	if (s.flags & (MT_SF_CLIPSTART | MT_SF_CLIPEND))
		n_clipped++;
	if (match_re)
		match_span(&s);
	else
		emit_span(&s);
}

/* ---- FXT input ---- */

/*
 * FXT in, FXT out, one record at a time: what is not an event is copied
 * unchanged in file order, so the string and thread tables (with their
 * re-registrations), providers and init records stay as they were.
 * Event records are kept, clipped or dropped. A record written later than
 * its place in the file (one that stands at the window's start, held so
 * that Perfetto meets them in the input's order) is rewritten with its
 * strings and thread inline: by then its table indexes may mean something
 * else (docs/fxt.md 3.2; the records are written by common/fxtwrite.h).
 */

#define FXT_SIZE_MAX (MT_FXT_MAX_WORDS * 8)

static unsigned char fxt_rec[FXT_SIZE_MAX];
static struct mt_fxt_reader fxr;
static uint64_t fxt_off; /* byte offset of the record being read */

/* ---- the byte source: the file, or zlib's output ---- */

static int src_fd = -1;
static unsigned char src_pre[8]; /* bytes read while sniffing */
static size_t src_pre_len, src_pre_pos;
static int src_gz;
static z_stream zs;
static unsigned char peek[8]; /* decompressed bytes read while sniffing */
static size_t peek_len, peek_pos;
static unsigned char zin[1 << 16];
static int z_end;

static unsigned char raw_buf[1 << 18];
static size_t raw_pos, raw_len;

static size_t raw_read(void *p, size_t n)
{
	size_t got = 0;

	if (src_pre_pos < src_pre_len) {
		got = src_pre_len - src_pre_pos < n ? src_pre_len - src_pre_pos : n;
		memcpy(p, src_pre + src_pre_pos, got);
		src_pre_pos += got;
		return got;
	}
	if (raw_pos == raw_len) {
		/* refill: one read for many records */
		ssize_t k;

		do
			k = read(src_fd, raw_buf, sizeof(raw_buf));
		while (k < 0 && errno == EINTR);
		if (k < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", in_name);
		raw_pos = 0;
		raw_len = (size_t)k;
		if (!k)
			return 0;
	}
	got = raw_len - raw_pos < n ? raw_len - raw_pos : n;
	memcpy(p, raw_buf + raw_pos, got);
	raw_pos += got;
	return got;
}

static size_t gz_read(unsigned char *p, size_t n)
{
	zs.next_out = p;
	zs.avail_out = (uInt)n;
	while (zs.avail_out == n && !z_end) {
		int zerr;

		if (!zs.avail_in) {
			size_t k = raw_read(zin, sizeof(zin));

			if (!k)
				die(MT_EXIT_DATA, "%s: gzip data ends early", in_name);
			zs.next_in = zin;
			zs.avail_in = (uInt)k;
		}
		zerr = inflate(&zs, Z_NO_FLUSH);
		if (zerr == Z_STREAM_END) {
			/* another member may follow (cat a.gz b.gz) */
			if (!zs.avail_in) {
				size_t k = raw_read(zin, sizeof(zin));

				zs.next_in = zin;
				zs.avail_in = (uInt)k;
			}
			if (!zs.avail_in)
				z_end = 1;
			else if (inflateReset(&zs) != Z_OK)
				die(MT_EXIT_DATA, "%s: bad gzip data", in_name);
		} else if (zerr != Z_OK && zerr != Z_BUF_ERROR) {
			die(MT_EXIT_DATA, "%s: bad gzip data: %s", in_name,
			    zs.msg ? zs.msg : "inflate failed");
		}
	}
	return n - zs.avail_out;
}

/* Up to n bytes (fewer only at the end of the input). */
static size_t src_read(void *buf, size_t n)
{
	unsigned char *p = buf;
	size_t got = 0;

	while (got < n && peek_pos < peek_len)
		p[got++] = peek[peek_pos++];
	while (got < n) {
		size_t k = src_gz ? gz_read(p + got, n - got) :
				    raw_read(p + got, n - got);

		if (!k)
			break;
		got += k;
	}
	return got;
}

/* ---- output ---- */

static unsigned char obuf[1 << 16];
static size_t olen;

static void out_flush(void)
{
	output_write(obuf, olen);
	olen = 0;
}

static void out_bytes(const void *p, size_t n)
{
	if (!n)
		return;
	if (n > sizeof(obuf) - olen)
		out_flush();
	if (n > sizeof(obuf)) {
		output_write(p, n);
		return;
	}
	memcpy(obuf + olen, p, n);
	olen += n;
}

static void buf_add(struct mt_buf *b, const void *p, size_t n)
{
	if (!n)
		return;
	if (mt_buf_add(b, p, n))
		die(MT_EXIT_SYSTEM, "out of memory");
}

/* ---- rewriting event records (common/fxtwrite.h) ---- */

static struct mt_buf tmp_out; /* the record rewritten last */
static struct mt_fxtw fw;     /* appends to tmp_out */

static void fxt_check(int err)
{
	if (err)
		die_mt(err, "%s: writing FXT", in_name);
}

static uint64_t field(uint64_t w, unsigned lo, unsigned hi)
{
	return (w >> lo) & ((1ull << (hi - lo + 1)) - 1);
}

/* The words a string ref read takes in its record: an inline one's. */
static size_t ref_words(const struct mt_fxt_str *s)
{
	if (!(s->ref & 0x8000))
		return 0;
	return mt_fxtw_str_words(MT_FXTW_INLINE(s->p, s->ref & 0x7fffu));
}

/* Bytes of an event record up to the end of its arguments: what comes
 * after (a complete event's end, an id) is type-specific. */
static size_t body_len(const struct mt_fxt_event *ev)
{
	size_t w = 2 + (ev->thread.ref ? 0 : 2) + ref_words(&ev->cat) +
		   ref_words(&ev->name);
	unsigned i;

	for (i = 0; i < ev->nargs; i++)
		w += ev->args[i].size;
	return w * 8;
}

/* Arguments added to a rewritten event: bools set to true, names inline. */
struct flags {
	struct mt_fxtw_arg a[2];
	unsigned n;
};

static void add_flag(struct flags *f, const char *name)
{
	f->a[f->n++] = (struct mt_fxtw_arg){
		.type = MT_FXT_ARG_BOOL, .name = MT_FXTW_INLINE(name, strlen(name)),
		.u = 1 };
}

/* How many of the flags fit after a body of nw words holding n arguments:
 * 15 arguments at most, and room left for an end word. The rest are left
 * out. */
static unsigned flags_fit(size_t nw, unsigned n, const struct flags *f)
{
	unsigned i;

	for (i = 0; i < f->n; i++) {
		size_t sz = mt_fxtw_arg_words(&f->a[i]);

		if (n >= MT_FXT_MAX_ARGS || nw + sz + 1 > MT_FXT_MAX_WORDS)
			break;
		nw += sz;
		n++;
	}
	return i;
}

/* An argument read, its name and string value inline; one of an unknown
 * type (or too long to inline) as it is, from raw. */
static struct mt_fxtw_arg inline_arg(const struct mt_fxt_arg *a,
				     const unsigned char *raw)
{
	struct mt_fxtw_arg o = { .type = a->type, .u = a->u, .d = a->d };

	if (a->type > MT_FXT_ARG_BOOL || a->name.len > 0x7fff ||
	    (a->type == MT_FXT_ARG_STRING && a->s.len > 0x7fff))
		return (struct mt_fxtw_arg){ .raw = raw, .raw_len = a->size * 8 };
	o.name = MT_FXTW_INLINE(a->name.p, a->name.len);
	if (a->type == MT_FXT_ARG_STRING)
		o.s = MT_FXTW_INLINE(a->s.p, a->s.len);
	return o;
}

/*
 * The event of rec into tmp_out at ts (a complete one ending at end), the
 * flags after its arguments, its bytes as they are but for the time, the
 * type's fields and the flags.
 */
static void again_as_is(const struct mt_fxt_record *rec, uint64_t ts,
			uint64_t end, const struct flags *f)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	size_t len = body_len(ev);
	unsigned n = flags_fit(len / 8, (unsigned)field(rec->header, 20, 23), f);

	mt_buf_reset(&tmp_out);
	fxt_check(mt_fxtw_event_again(&fw, ev->type, rec->raw, len, ts, f->a, n,
				      end));
}

/*
 * The same with thread, category, name and arguments inline, for an event
 * written later than its place in the file, where the table indexes may
 * mean something else. As it is when the inline form would not fit in a
 * record.
 */
static void again_inline(const struct mt_fxt_record *rec, uint64_t ts,
			 uint64_t end, const struct flags *f)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	struct mt_fxtw_arg a[MT_FXT_MAX_ARGS + 2];
	struct mt_fxtw_event e = {
		.thread = { 0, ev->thread.pid, ev->thread.tid },
		.cat = MT_FXTW_INLINE(ev->cat.p, ev->cat.len),
		.name = MT_FXTW_INLINE(ev->name.p, ev->name.len),
		.ts = ts, .args = a,
	};
	size_t off = body_len(ev), nw;
	unsigned i, n;

	if (ev->cat.len > 0x7fff || ev->name.len > 0x7fff) {
		again_as_is(rec, ts, end, f);
		return;
	}
	nw = 4 + mt_fxtw_str_words(e.cat) + mt_fxtw_str_words(e.name);
	for (i = 0; i < ev->nargs; i++)
		off -= ev->args[i].size * 8;
	for (i = 0; i < ev->nargs; off += ev->args[i].size * 8, i++) {
		a[i] = inline_arg(&ev->args[i], rec->raw + off);
		nw += mt_fxtw_arg_words(&a[i]);
	}
	if (nw + 2 + 2 * 3 > MT_FXT_MAX_WORDS) {
		again_as_is(rec, ts, end, f);
		return;
	}
	n = flags_fit(nw, ev->nargs, f);
	memcpy(a + ev->nargs, f->a, n * sizeof(*a));
	e.nargs = ev->nargs + n;
	mt_buf_reset(&tmp_out);
	fxt_check(mt_fxtw_event(&fw, ev->type, &e, end));
}

/* ---- times: the window is in ns, records in ticks ---- */

static uint64_t to_ticks(uint64_t ns, uint64_t tps)
{
	if (tps == MT_FXT_TICKS_NS)
		return ns;
	return (uint64_t)((unsigned __int128)ns * tps / MT_FXT_TICKS_NS);
}

/* ---- FXT: slices nested as Perfetto nests them, then written ---- */

/*
 * Writers put FXT events in any order (magic-trace writes the begins of the
 * frames open at the start of a thread after all its other events), and
 * Perfetto reads them sorted by (timestamp, file order): begins and ends
 * are paired, and slices nested, only after that sort
 * (importers/fuchsia/fuchsia_trace_tokenizer.cc pushes every event to the
 * TraceSorter; sorter/trace_sorter.h orders by ts, then by position).
 * So unless the options keep everything, a first pass copies the input to
 * a temporary file and notes each event that makes or ends a slice on a
 * thread track (begin, end, complete, instant) as a fixed record; those
 * are sorted on disk by (thread, time, file order), in runs merged a few
 * at a time, and replayed one thread at a time through Perfetto's slice
 * tracker (importers/common/slice_tracker.cc), which gives every slice its
 * end and depth. The decision for each event, one byte an event in file
 * order, goes to a third temporary file that the second pass, over the
 * copy, reads as it goes. Memory is bounded by the threads, the stack depth
 * and the fixed buffers (SORT_RUN records in the sort, SORT_FANIN run
 * buffers in a merge); the temporary files grow with the input.
 */
enum { FX_PLAIN, FX_COLLECT, FX_APPLY };
static int fx_pass;
static unsigned long long nf_in, nf_kept, nf_clipped, nf_short;

/* found by the first pass: the earliest event, the earliest begin or
 * complete event (the start of the trace), the latest time seen */
static int64_t fx_min_ts = INT64_MAX, fx_min_start = INT64_MAX, fx_max_ts = -1;

struct srec {
	uint64_t ts, end, seq; /* ns; end: a complete event's */
	uint32_t th;
	uint8_t type, match;   /* match: the name matches --match */
};

#define SORT_RUN (1u << 15) /* records sorted in memory at a time */
#define SORT_FANIN 32       /* runs merged at a time */
#define SORT_BUF 256        /* records buffered per run while merging */

struct run {
	uint64_t off, n; /* in records */
};

static FILE *fx_copy, *fx_runs, *fx_dec;
static struct srec *run_buf;
static size_t run_n;
static struct run *runs;
static size_t nruns, runs_cap;
static uint64_t runs_end, fx_seq;

static void pio(int wr, FILE *f, void *p, size_t n, uint64_t at)
{
	ssize_t k = wr ? pwrite(fileno(f), p, n, (off_t)at) :
			 pread(fileno(f), p, n, (off_t)at);

	if (k != (ssize_t)n)
		die_errno(MT_EXIT_SYSTEM, "the temporary file");
}

static FILE *fx_tmp(void)
{
	FILE *f = tmpfile();

	if (!f)
		die_errno(MT_EXIT_SYSTEM, "a temporary file");
	return f;
}

static void add_run(uint64_t off, uint64_t n)
{
	if (nruns == runs_cap) {
		size_t cap = runs_cap ? runs_cap * 2 : 16;
		struct run *v = realloc(runs, cap * sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
		runs = v;
		runs_cap = cap;
	}
	runs[nruns].off = off;
	runs[nruns++].n = n;
}

static int by_thread_start(const void *a, const void *b)
{
	const struct srec *x = a, *y = b;

	if (x->th != y->th)
		return x->th < y->th ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void run_out(void)
{
	if (!run_n)
		return;
	qsort(run_buf, run_n, sizeof(*run_buf), by_thread_start);
	pio(1, fx_runs, run_buf, run_n * sizeof(*run_buf),
	    runs_end * sizeof(*run_buf));
	add_run(runs_end, run_n);
	runs_end += run_n;
	run_n = 0;
}

static void note_event(uint32_t th, unsigned type, uint64_t ts, uint64_t end,
		       int match)
{
	struct srec *r;

	if (!run_buf) {
		run_buf = malloc(SORT_RUN * sizeof(*run_buf));
		if (!run_buf)
			die(MT_EXIT_SYSTEM, "out of memory");
	}
	if (run_n == SORT_RUN)
		run_out();
	r = &run_buf[run_n++];
	memset(r, 0, sizeof(*r));
	r->ts = ts;
	r->end = end;
	r->seq = fx_seq++;
	r->th = th;
	r->type = (uint8_t)type;
	r->match = (uint8_t)match;
}

/* threads of the first pass, by (pid, tid) */
static struct mt_tidmap cth_ids;

static uint32_t cthread_get(uint64_t pid, uint64_t tid)
{
	uint32_t i;
	int is_new;

	/* Perfetto keeps pid and tid as 32 bits (UpdateThread) */
	if (mt_tidmap_get(&cth_ids, (uint32_t)pid, (uint32_t)tid, &i, &is_new))
		die(MT_EXIT_SYSTEM, "out of memory");
	return i;
}

static int fxt_name_matches(const struct mt_fxt_event *ev)
{
	const char *p = ev->name.p;
	size_t len = ev->name.len;

	if (!match_re)
		return 0;
	if (!p) {
		p = "";
		len = 0;
	}
	return pcre2_match(match_re, (PCRE2_SPTR)p, len, 0, 0, match_md, NULL) >= 0;
}

/* Whether the event makes or ends a slice on its thread's track: these,
 * and only these, have a decision (both passes ask the same). */
static int slice_event(const struct mt_fxt_event *ev, int64_t ts, int64_t end)
{
	switch (ev->type) {
	case MT_FXT_EV_BEGIN:
	case MT_FXT_EV_END:
	case MT_FXT_EV_INSTANT:
		return 1;
	case MT_FXT_EV_COMPLETE:
		return end >= ts; /* else Perfetto drops it */
	default:
		return 0;
	}
}

static void fx_collect(const struct mt_fxt_event *ev, int64_t ts, int64_t end)
{
	if (ts < fx_min_ts)
		fx_min_ts = ts;
	if (ts > fx_max_ts)
		fx_max_ts = ts;
	if (ev->type == MT_FXT_EV_COMPLETE && end > fx_max_ts)
		fx_max_ts = end;
	if ((ev->type == MT_FXT_EV_BEGIN || (ev->type == MT_FXT_EV_COMPLETE &&
	     end >= ts)) && ts < fx_min_start)
		fx_min_start = ts;
	if (!thread_kept((uint32_t)ev->thread.pid, (uint32_t)ev->thread.tid) ||
	    !slice_event(ev, ts, end))
		return;
	note_event(cthread_get(ev->thread.pid, ev->thread.tid), ev->type,
		   (uint64_t)ts, (uint64_t)end,
		   ev->type != MT_FXT_EV_END && ev->type != MT_FXT_EV_INSTANT &&
		   fxt_name_matches(ev));
}

/* ---- the sort on disk ---- */

struct cursor {
	uint64_t off, left; /* in records, in the run file */
	struct srec buf[SORT_BUF];
	size_t pos, n;
};

static struct cursor *cursors;

static const struct srec *cursor_peek(FILE *f, struct cursor *c)
{
	if (c->pos == c->n) {
		size_t k = c->left < SORT_BUF ? (size_t)c->left : SORT_BUF;

		if (!k)
			return NULL;
		pio(0, f, c->buf, k * sizeof(*c->buf), c->off * sizeof(*c->buf));
		c->off += k;
		c->left -= k;
		c->pos = 0;
		c->n = k;
	}
	return &c->buf[c->pos];
}

/* Merge runs[from, to) of f in order, each record to sink. */
static void merge(FILE *f, size_t from, size_t to,
		  void (*sink)(const struct srec *))
{
	size_t i, k = to - from;

	for (i = 0; i < k; i++) {
		cursors[i].off = runs[from + i].off;
		cursors[i].left = runs[from + i].n;
		cursors[i].pos = cursors[i].n = 0;
	}
	for (;;) {
		const struct srec *best = NULL, *r;
		size_t bi = 0;

		for (i = 0; i < k; i++)
			if ((r = cursor_peek(f, &cursors[i])) &&
			    (!best || by_thread_start(r, best) < 0)) {
				best = r;
				bi = i;
			}
		if (!best)
			return;
		sink(best);
		cursors[bi].pos++;
	}
}

static FILE *merge_to;
static struct srec merge_out[SORT_BUF];
static size_t merge_n;
static uint64_t merge_end;

static void merge_flush(void)
{
	pio(1, merge_to, merge_out, merge_n * sizeof(*merge_out),
	    merge_end * sizeof(*merge_out));
	merge_end += merge_n;
	merge_n = 0;
}

static void to_file(const struct srec *r)
{
	merge_out[merge_n++] = *r;
	if (merge_n == SORT_BUF)
		merge_flush();
}

/* Merge passes until few enough runs are left for the last one. */
static void merge_down(void)
{
	while (nruns > SORT_FANIN) {
		struct run *old = runs;
		size_t nold = nruns, i;

		runs = NULL;
		nruns = runs_cap = 0;
		merge_to = fx_tmp();
		merge_end = 0;
		for (i = 0; i < nold; i += SORT_FANIN) {
			uint64_t off = merge_end;
			size_t to = i + SORT_FANIN < nold ? i + SORT_FANIN : nold;
			struct run *keep = runs;
			size_t nkeep = nruns, ckeep = runs_cap;

			/* merge() reads runs[]: point it at the old ones */
			runs = old;
			merge(fx_runs, i, to, to_file);
			runs = keep;
			nruns = nkeep;
			runs_cap = ckeep;
			merge_flush();
			add_run(off, merge_end - off);
		}
		free(old);
		fclose(fx_runs);
		fx_runs = merge_to;
	}
}


/* ---- the decisions: one byte an event, written through a window ---- */

enum { D_DROP, D_KEEP, D_CLOSE /* a begin never ended: an end at --to */ };

#define DEC_WIN (1u << 13)
#define DEC_NWIN 8
static struct dec_window {
	uint64_t base; /* UINT64_MAX: unused */
	uint64_t used; /* when last used, for the least recently used */
	unsigned char b[DEC_WIN];
} dec_w[DEC_NWIN];
static uint64_t dec_total, dec_clock;

static size_t dec_len(uint64_t base)
{
	return dec_total - base < DEC_WIN ? (size_t)(dec_total - base) : DEC_WIN;
}

static void dec_flush(void)
{
	size_t i;

	for (i = 0; i < DEC_NWIN; i++)
		if (dec_w[i].used && dec_w[i].base != UINT64_MAX)
			pio(1, fx_dec, dec_w[i].b, dec_len(dec_w[i].base),
			    dec_w[i].base);
}

/* Slices are decided in (thread, start) order, which follows file order
 * closely on each thread, at a few places at once (a begin and its end
 * stand far apart): a few windows of the file are kept, the least recently
 * used one written back and read again where a decision falls outside. */
static void dec_put(uint64_t seq, unsigned char d)
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
		pio(1, fx_dec, w->b, dec_len(w->base), w->base);
	w->base = base;
	pio(0, fx_dec, w->b, dec_len(base), base);
found:
	w->used = ++dec_clock;
	w->b[seq - base] = d;
}

/* ---- the replay: Perfetto's slice tracker on one thread ---- */

#define PENDING UINT64_MAX /* kPendingDuration: a begin not ended yet */
#define NOSEQ UINT64_MAX

struct rframe {
	uint64_t start, end, bseq, eseq; /* eseq: the end that closed it */
	int32_t depth;
	uint8_t type;
	uint8_t pmatch;   /* a match, if its end keeps it in the window */
	uint8_t in_match; /* inside a match */
	uint8_t holds;    /* holds a match that is kept */
};

static int dec_depth_only; /* the mt stream: only --max-depth is decided */
static struct rframe *rst;
static uint64_t *rmin; /* rmin[i]: the earliest end of rst[0 .. i-1] */
static size_t rsp, rcap;
static uint32_t rth = UINT32_MAX;

static int depth_ok(size_t depth)
{
	return !have_max_depth || (int64_t)depth < max_depth;
}

/*
 * Pop the top frame and decide its slice, now that its end is known (or
 * that it never ends). A slice is kept when it is in the window, long
 * enough, shallow enough and, with --match, a match, inside one or holding
 * one. Its ancestors are the frames below it: they are still there, as the
 * tracker pops only the top. Instants are kept by their time alone.
 */
static void rpop(void)
{
	struct rframe *f = &rst[--rsp];
	uint64_t s = f->start, e = f->end;
	int ended = e != PENDING, in_window, is_match;
	unsigned char d = D_DROP;
	size_t i;

	if (dec_depth_only) {
		if (f->type != MT_FXT_EV_INSTANT && depth_ok((size_t)f->depth))
			dec_put(f->bseq, D_KEEP);
		return;
	}
	if (f->type == MT_FXT_EV_INSTANT) {
		if (time_kept(s))
			dec_put(f->bseq, D_KEEP);
		return;
	}
	in_window = s < win_to && (s >= win_from || e > win_from);
	if (in_window && ended && e - s < min_dur) {
		nf_short++;
		return;
	}
	is_match = f->pmatch && in_window;
	if (is_match)
		for (i = rsp; i-- > 0 && !rst[i].holds;)
			rst[i].holds = 1;
	if (in_window && depth_ok((size_t)f->depth) &&
	    (!match_re || is_match || f->in_match || f->holds))
		d = !ended && win_to != MT_NONE64 && (int64_t)win_to <= fx_max_ts ?
		    D_CLOSE : D_KEEP;
	if (d == D_DROP)
		return;
	dec_put(f->bseq, d);
	if (f->eseq != NOSEQ)
		dec_put(f->eseq, D_KEEP);
}

static void rpush(const struct srec *r, uint64_t end)
{
	struct rframe *f, *parent = rsp ? &rst[rsp - 1] : NULL;

	if (rsp == rcap) {
		size_t cap = rcap ? rcap * 2 : 64;
		struct rframe *v = realloc(rst, cap * sizeof(*v));
		uint64_t *m = realloc(rmin, (cap + 1) * sizeof(*m));

		if (!v || !m)
			die(MT_EXIT_SYSTEM, "out of memory");
		rst = v;
		rmin = m;
		rcap = cap;
		parent = rsp ? &rst[rsp - 1] : NULL;
	}
	if (!rsp)
		rmin[0] = PENDING;
	f = &rst[rsp];
	f->start = r->ts;
	f->end = end;
	f->bseq = r->seq;
	f->eseq = NOSEQ;
	f->depth = rsp > INT32_MAX ? INT32_MAX : (int32_t)rsp;
	f->type = r->type;
	f->pmatch = r->match && depth_ok(rsp) && r->ts < win_to;
	f->in_match = parent && (parent->in_match || parent->pmatch);
	f->holds = 0;
	rmin[rsp + 1] = end < rmin[rsp] ? end : rmin[rsp];
	rsp++;
}

/*
 * SliceTracker::MaybeCloseStack for a slice [ts, ts + dur) (dur PENDING
 * for a begin or an end), statement for statement, its quirk included: a
 * slice that has ended pops the top of the stack, even when it lies below
 * it. Returns 0 when the new slice partially overlaps an open one (it is
 * then dropped). Perfetto walks the whole stack each time; the walk stops
 * here as soon as every slice below has an end after ts (and after the new
 * slice's end), where the rest of the walk would change nothing: time
 * stays linear in the depth of deep recursion.
 */
static unsigned long long nf_steps; /* frames visited, for -v */

static int close_stack(uint64_t ts, uint64_t dur)
{
	int incomplete = 0;
	size_t i;

	for (i = rsp; i-- > 0;) {
		const struct rframe *f = &rst[i];

		nf_steps++;
		if (f->end == PENDING) {
			incomplete = 1;
		} else if (incomplete) {
			/* begun slices that outlive the complete event they
			 * began in are cut at its end (misplaced_end_event) */
			if (ts > f->end) {
				uint64_t end = f->end;

				while (rsp > i + 1) {
					rst[rsp - 1].end = end;
					rpop();
				}
				rpop();
				incomplete = 0;
			}
		} else if (f->end < ts ||
			   (f->end == ts && !(f->start == f->end && dur == 0))) {
			/* intervals are half-open; zero-length slices at
			 * the same time stack */
			rpop();
		} else if (dur != PENDING && ts < f->end && ts + dur > f->end) {
			return 0;
		}
		if (rmin[i] > ts && (dur == PENDING || rmin[i] >= ts + dur))
			break;
	}
	return 1;
}

/* SliceTracker::End with no name: the top-most begun slice takes the end,
 * and is popped if it is the top. */
static void replay_end(const struct srec *r)
{
	size_t i, k;

	close_stack(r->ts, PENDING);
	for (i = rsp; i-- > 0;) {
		nf_steps++;
		if (rst[i].end == PENDING)
			break;
	}
	if (i == (size_t)-1)
		return; /* an end with no begin open: ignored */
	rst[i].end = r->ts;
	rst[i].eseq = r->seq;
	if (i == rsp - 1) {
		rpop();
		return;
	}
	for (k = i + 1; k <= rsp; k++)
		rmin[k] = rst[k - 1].end < rmin[k - 1] ? rst[k - 1].end : rmin[k - 1];
}

static void replay(const struct srec *r)
{
	if (r->th != rth) {
		while (rsp)
			rpop();
		rth = r->th;
	}
	switch (r->type) {
	case MT_FXT_EV_END:
		replay_end(r);
		return;
	case MT_FXT_EV_BEGIN:
		if (close_stack(r->ts, PENDING))
			rpush(r, PENDING);
		return;
	case MT_FXT_EV_COMPLETE:
		if (close_stack(r->ts, r->end - r->ts))
			rpush(r, r->end);
		return;
	default: /* an instant: Scoped with duration 0 */
		if (close_stack(r->ts, 0))
			rpush(r, r->ts);
		return;
	}
}

/* After the first pass: the events sorted and replayed, the decisions
 * written. */
static void fx_decide(void)
{
	run_out();
	free(run_buf);
	run_buf = NULL;
	fx_dec = fx_tmp();
	dec_total = fx_seq;
	if (ftruncate(fileno(fx_dec), (off_t)fx_seq))
		die_errno(MT_EXIT_SYSTEM, "a temporary file");
	cursors = malloc(SORT_FANIN * sizeof(*cursors));
	if (!cursors)
		die(MT_EXIT_SYSTEM, "out of memory");
	merge_down();
	merge(fx_runs, 0, nruns, replay);
	while (rsp)
		rpop();
	dec_flush();
	free(cursors);
	free(rst);
	free(rmin);
	free(runs);
	fclose(fx_runs);
	fx_seq = 0;
}

static unsigned char dec_buf[1 << 16];
static size_t dec_pos, dec_len_;

/* The second pass: the decision for the next slice event in file order. */
static int fx_kept(void)
{
	if (dec_pos == dec_len_) {
		size_t k = sizeof(dec_buf);

		if (fx_seq + k > dec_total)
			k = (size_t)(dec_total - fx_seq);
		if (!k)
			return D_DROP;
		pio(0, fx_dec, dec_buf, k, fx_seq);
		dec_pos = 0;
		dec_len_ = k;
	}
	fx_seq++;
	return dec_buf[dec_pos++];
}

/* ---- the second pass: writing what was decided ---- */


static void emit_out(void)
{
	out_bytes(tmp_out.p, tmp_out.len);
	nf_kept++;
}

/*
 * Events whose time becomes the window's start are held and written at the
 * end, per thread in the order Perfetto met them in the input (start, then
 * file order): the slices clipped to the window's start, outermost first,
 * before those that start there. Their number is bounded by the frames
 * open at the window's start (and the events at that very time).
 */
struct fheld {
	uint32_t pid, tid;
	uint64_t key, seq;
	struct mt_buf rec;
};

static struct fheld *fheld;
static size_t nfheld, fheldcap;

static int by_input_order(const void *a, const void *b)
{
	const struct fheld *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Hold tmp_out, which Perfetto met at (key, seq) in the input. */
static void fhold(const struct mt_fxt_event *ev, uint64_t key, uint64_t seq)
{
	struct fheld *h;

	if (nfheld == fheldcap) {
		size_t cap = fheldcap ? fheldcap * 2 : 64;
		struct fheld *v = realloc(fheld, cap * sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
		fheld = v;
		fheldcap = cap;
	}
	h = &fheld[nfheld++];
	h->pid = (uint32_t)ev->thread.pid;
	h->tid = (uint32_t)ev->thread.tid;
	h->key = key;
	h->seq = seq;
	mt_buf_init(&h->rec);
	buf_add(&h->rec, tmp_out.p, tmp_out.len);
}

/* Hold an event as it is, its strings and thread inline. */
static void fhold_as_is(const struct mt_fxt_record *rec, uint64_t key,
			uint64_t seq)
{
	static const struct flags none;

	again_inline(rec, rec->u.event.ts, rec->u.event.end_ts, &none);
	fhold(&rec->u.event, key, seq);
}

/* begins never ended, kept: an end at the window's end on their thread */
struct fclose {
	uint64_t pid, tid, tps;
};

static struct fclose *fcloses;
static size_t nfcloses, fclosecap;

static void close_later(const struct mt_fxt_record *rec)
{
	if (nfcloses == fclosecap) {
		size_t cap = fclosecap ? fclosecap * 2 : 16;
		struct fclose *v = realloc(fcloses, cap * sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
		fcloses = v;
		fclosecap = cap;
	}
	fcloses[nfcloses].pid = rec->u.event.thread.pid;
	fcloses[nfcloses].tid = rec->u.event.thread.tid;
	fcloses[nfcloses++].tps = rec->provider->ticks_per_second;
}

static void close_at_end(const struct fclose *c)
{
	struct flags f = { .n = 0 };
	struct mt_fxtw_event e = {
		.thread = { 0, c->pid, c->tid }, .ts = to_ticks(win_to, c->tps),
		.args = f.a,
	};

	add_flag(&f, "clipped end");
	e.nargs = f.n;
	mt_buf_reset(&tmp_out);
	fxt_check(mt_fxtw_end(&fw, &e));
	emit_out();
	nf_clipped++;
}

static void fxt_complete(const struct mt_fxt_record *rec, uint64_t s, uint64_t e,
			 uint64_t seq)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	uint64_t tps = rec->provider->ticks_per_second;
	uint64_t cs = s, ce = e;
	struct flags f = { .n = 0 };

	if (s < win_from) {
		cs = win_from;
		add_flag(&f, "clipped start");
	}
	if (win_to != MT_NONE64 && e > win_to) {
		ce = win_to;
		add_flag(&f, "clipped end");
	}
	if (f.n)
		nf_clipped++;
	if (cs == win_from && have_from) {
		again_inline(rec, cs == s ? ev->ts : to_ticks(cs, tps),
			     ce == e ? ev->end_ts : to_ticks(ce, tps), &f);
		fhold(ev, s, seq);
		return;
	}
	if (!f.n) {
		out_bytes(rec->raw, rec->size);
		nf_kept++;
		return;
	}
	again_as_is(rec, cs == s ? ev->ts : to_ticks(cs, tps),
		    ce == e ? ev->end_ts : to_ticks(ce, tps), &f);
	emit_out();
}

static void fxt_begin(const struct mt_fxt_record *rec, uint64_t ts, uint64_t seq)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	struct flags f = { .n = 0 };

	if (ts < win_from) {
		add_flag(&f, "clipped start");
		again_inline(rec, to_ticks(win_from, rec->provider->ticks_per_second),
			     0, &f);
		fhold(ev, ts, seq);
		nf_clipped++;
	} else if (have_from && ts == win_from) {
		fhold_as_is(rec, ts, seq);
	} else {
		out_bytes(rec->raw, rec->size);
		nf_kept++;
	}
}

static void fxt_end(const struct mt_fxt_record *rec, uint64_t ts, uint64_t seq)
{
	struct flags f = { .n = 0 };

	if (win_to != MT_NONE64 && ts > win_to) {
		add_flag(&f, "clipped end");
		again_as_is(rec, to_ticks(win_to, rec->provider->ticks_per_second),
			    0, &f);
		emit_out();
		nf_clipped++;
	} else if (have_from && ts == win_from) {
		fhold_as_is(rec, ts, seq);
	} else {
		out_bytes(rec->raw, rec->size);
		nf_kept++;
	}
}

static void fxt_event(const struct mt_fxt_record *rec)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	uint64_t tps = rec->provider->ticks_per_second;
	int64_t ts, end = 0;
	uint64_t seq;
	int d;

	if (mt_fxt_ticks_to_ns(ev->ts, tps, &ts) ||
	    (ev->type == MT_FXT_EV_COMPLETE &&
	     mt_fxt_ticks_to_ns(ev->end_ts, tps, &end)))
		return; /* readers drop it too */
	if (fx_pass == FX_COLLECT) {
		fx_collect(ev, ts, end);
		return;
	}
	if (!thread_kept((uint32_t)ev->thread.pid, (uint32_t)ev->thread.tid))
		return;
	if (fx_pass == FX_PLAIN || !slice_event(ev, ts, end)) {
		/* counters, async and flow events: by their time */
		if (fx_pass == FX_PLAIN || time_kept((uint64_t)ts)) {
			out_bytes(rec->raw, rec->size);
			nf_kept++;
		}
		return;
	}
	seq = fx_seq;
	d = fx_kept();
	if (d == D_DROP)
		return;
	switch (ev->type) {
	case MT_FXT_EV_COMPLETE:
		fxt_complete(rec, (uint64_t)ts, (uint64_t)end, seq);
		return;
	case MT_FXT_EV_BEGIN:
		fxt_begin(rec, (uint64_t)ts, seq);
		if (d == D_CLOSE)
			close_later(rec);
		return;
	case MT_FXT_EV_END:
		fxt_end(rec, (uint64_t)ts, seq);
		return;
	default:
		if (have_from && (uint64_t)ts == win_from) {
			fhold_as_is(rec, (uint64_t)ts, seq);
			return;
		}
		out_bytes(rec->raw, rec->size);
		nf_kept++;
		return;
	}
}

static void fxt_finish(void)
{
	size_t i;

	if (nfheld)
		qsort(fheld, nfheld, sizeof(*fheld), by_input_order);
	for (i = 0; i < nfheld; i++) {
		out_bytes(fheld[i].rec.p, fheld[i].rec.len);
		mt_buf_release(&fheld[i].rec);
	}
	nf_kept += nfheld;
	for (i = 0; i < nfcloses; i++)
		close_at_end(&fcloses[i]);
}

/* One record into fxt_rec: its size, 0 at the end of the input. */
static size_t fxt_read_record(void)
{
	size_t got = src_read(fxt_rec, 8), size;

	if (!got)
		return 0;
	if (got < 8)
		die(MT_EXIT_DATA, "%s: byte offset 0x%llx: truncated record "
		    "header (%zu of 8 bytes)", in_name,
		    (unsigned long long)fxt_off, got);
	size = (size_t)field(mt_get64(fxt_rec), 4, 15) * 8;
	if (!size)
		die(MT_EXIT_DATA, "%s: byte offset 0x%llx: record of size 0 "
		    "(header 0x%016llx)", in_name, (unsigned long long)fxt_off,
		    (unsigned long long)mt_get64(fxt_rec));
	got = src_read(fxt_rec + 8, size - 8);
	if (got < size - 8)
		die(MT_EXIT_DATA, "%s: byte offset 0x%llx: truncated record "
		    "(%zu of %zu bytes)", in_name, (unsigned long long)fxt_off,
		    got + 8, size);
	return size;
}

/* One pass over the input, record by record: memory does not grow with
 * the file. */
static void fxt_pass(void)
{
	struct mt_fxt_record rec;
	size_t size;

	mt_fxt_reader_init_mem(&fxr, NULL, 0);
	for (fxt_off = 0; (size = fxt_read_record()); fxt_off += size) {
		int got;

		mt_fxt_reader_feed(&fxr, fxt_rec, size);
		got = mt_fxt_next(&fxr, &rec);
		if (got < 0)
			die_mt(got, "%s: byte offset 0x%llx", in_name,
			       (unsigned long long)fxt_off);
		if (fx_pass == FX_COLLECT) {
			if (fwrite(fxt_rec, size, 1, fx_copy) != 1)
				die_errno(MT_EXIT_SYSTEM, "the temporary file");
			if (rec.type == MT_FXT_EVENT && !rec.bad &&
			    !rec.undefined && rec.provider)
				fxt_event(&rec);
			continue;
		}
		nf_in++;
		if (rec.type != MT_FXT_EVENT || rec.bad || rec.undefined ||
		    !rec.provider) {
			/* kept as it is; readers drop a bad event anyway */
			out_bytes(rec.raw, rec.size);
			nf_kept++;
			continue;
		}
		fxt_event(&rec);
	}
	mt_fxt_reader_release(&fxr);
}

/* Read the temporary copy from its start on the next pass. */
static void fx_rewind(void)
{
	if (fflush(fx_copy) || lseek(fileno(fx_copy), 0, SEEK_SET))
		die_errno(MT_EXIT_SYSTEM, "the temporary file");
	src_fd = fileno(fx_copy);
	src_gz = 0;
	src_pre_len = src_pre_pos = peek_len = peek_pos = 0;
	raw_pos = raw_len = 0;
}


static void fxt_run(void)
{
	/*
	 * The input is read once; when the options may leave something out,
	 * into a temporary copy, with the first pass that finds the start of
	 * the trace and decides the slices, then read from there.
	 */
	int decide = have_from || have_to || opt_dur != MT_NONE64 || have_min ||
		     have_max_depth || match_re;

	mt_fxtw_init_buf(&fw, &tmp_out);
	if (decide) {
		fx_pass = FX_COLLECT;
		fx_copy = fx_tmp();
		fx_runs = fx_tmp();
		fxt_pass();
		fx_rewind();
		/* the trace starts with its first slice; with none, its
		 * first event */
		if (fx_min_start != INT64_MAX)
			see_time((uint64_t)fx_min_start);
		else if (fx_min_ts != INT64_MAX)
			see_time((uint64_t)fx_min_ts);
		fx_decide();
	}
	fx_pass = decide ? FX_APPLY : FX_PLAIN;
	fxt_pass();
	fxt_finish();
	out_flush();
	mt_fxtw_release(&fw);
	mt_buf_release(&tmp_out);
	if (verbose || nf_short)
		fprintf(stderr, "%s: %s: %llu records read, %llu written, %llu spans "
			"clipped, %llu shorter than --min-duration dropped\n",
			mt_progname(), in_name, nf_in, nf_kept, nf_clipped, nf_short);
	if (verbose && decide)
		fprintf(stderr, "%s: %s: %llu slice events nested, %llu stack "
			"frames visited\n", mt_progname(), in_name,
			(unsigned long long)dec_total, nf_steps);
	if (fx_copy)
		fclose(fx_copy);
	if (fx_dec)
		fclose(fx_dec);
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
static int stream_instant(const struct mt_record *r)
{
	if (r->type == MT_REC_ERROR)
		return r->u.error.time != MT_NONE64 &&
		       thread_kept(r->u.error.pid, r->u.error.tid);
	if (r->type != MT_REC_MARK)
		return 0;
	return r->u.mark.tid != MT_NONE32 && r->u.mark.time != MT_NONE64 &&
	       r->u.mark.kind != MT_MARK_PSB && r->u.mark.kind != MT_MARK_CBR &&
	       thread_kept(r->u.mark.pid, r->u.mark.tid);
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

static int stream_first_pass(int fd, const unsigned char *magic, size_t len)
{
	struct mt_reader r1;
	struct mt_record r;
	uint64_t min_t = MT_NONE64, min_start = MT_NONE64;
	unsigned char buf[1 << 16];
	int got, err;

	stream_copy = fx_tmp();
	if (len && fwrite(magic, len, 1, stream_copy) != 1)
		die_errno(MT_EXIT_SYSTEM, "the temporary file");
	for (;;) {
		ssize_t k = read(fd, buf, sizeof(buf));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", in_name);
		if (!k)
			break;
		if (fwrite(buf, (size_t)k, 1, stream_copy) != 1)
			die_errno(MT_EXIT_SYSTEM, "the temporary file");
	}
	if (fflush(stream_copy) || lseek(fileno(stream_copy), 0, SEEK_SET))
		die_errno(MT_EXIT_SYSTEM, "the temporary file");
	if ((err = mt_reader_init_fd(&r1, fileno(stream_copy), NULL, 0)))
		die_mt(err, "%s", in_name);
	if (have_max_depth)
		fx_runs = fx_tmp();
	while ((got = mt_reader_next(&r1, &r)) > 0) {
		uint64_t t = record_time(&r);

		if (t != MT_NONE64 && t < min_t)
			min_t = t;
		if (r.type == MT_REC_SPAN) {
			const struct mt_span *sp = &r.u.span;

			if (sp->start < min_start)
				min_start = sp->start;
			if (have_max_depth && thread_kept(sp->pid, sp->tid))
				note_event(cthread_get(sp->pid, sp->tid),
					   MT_FXT_EV_COMPLETE, sp->start,
					   sp->end < sp->start ? sp->start : sp->end, 0);
		} else if (have_max_depth && stream_instant(&r)) {
			const uint32_t pid = r.type == MT_REC_ERROR ?
				r.u.error.pid : r.u.mark.pid;
			const uint32_t tid = r.type == MT_REC_ERROR ?
				r.u.error.tid : r.u.mark.tid;

			note_event(cthread_get(pid, tid), MT_FXT_EV_INSTANT, t, t, 0);
		}
	}
	if (got < 0)
		die_mt(got, "%s: byte offset 0x%llx", in_name,
		       (unsigned long long)mt_reader_offset(&r1));
	mt_reader_release(&r1);
	if (min_start != MT_NONE64)
		see_time(min_start);
	else if (min_t != MT_NONE64)
		see_time(min_t);
	if (have_max_depth) {
		dec_depth_only = 1;
		fx_decide();
	}
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

static void run(void)
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
			span(&r.u.span);
			break;
		case MT_REC_THREAD:
			see_time(r.u.thread.time);
			if (thread_kept(r.u.thread.pid, r.u.thread.tid))
				keep(&r);
			break;
		case MT_REC_BRANCH:
			see_time(r.u.branch.time);
			if (thread_kept(r.u.branch.pid, r.u.branch.tid) &&
			    time_kept(r.u.branch.time))
				keep(&r);
			break;
		case MT_REC_ERROR:
			see_time(r.u.error.time);
			if (have_max_depth && stream_instant(&r))
				fx_kept(); /* its decision is its time's */
			if (thread_kept(r.u.error.pid, r.u.error.tid) &&
			    time_kept(r.u.error.time))
				keep(&r);
			break;
		case MT_REC_MARK:
			see_time(r.u.mark.time);
			if (have_max_depth && stream_instant(&r))
				fx_kept();
			if ((r.u.mark.tid == MT_NONE32 ||
			     thread_kept(r.u.mark.pid, r.u.mark.tid)) &&
			    time_kept(r.u.mark.time))
				keep(&r);
			break;
		case MT_REC_SAMPLE:
			see_time(r.u.sample.time);
			if (thread_kept(r.u.sample.pid, r.u.sample.tid) &&
			    time_kept(r.u.sample.time))
				keep(&r);
			break;
		default:
			/* strings, meta, and types this version does not know */
			keep(&r);
			break;
		}
	}
	if (got < 0)
		die_mt(got, "%s: byte offset 0x%llx", in_name,
		       (unsigned long long)mt_reader_offset(&in));
	flush_held();
}

static uint64_t duration_arg(const char *s, const char *opt)
{
	uint64_t v;
	int err = mt_parse_duration(s, &v);

	if (err)
		die(MT_EXIT_USAGE, "%s %s: %s (a number and a unit: ns, us, ms, s)",
		    opt, s, mt_strerror(err));
	return v;
}

int main(int argc, char **argv)
{
	enum {
		OPT_FROM = 256, OPT_TO, OPT_DURATION, OPT_ABS, OPT_MIN, OPT_PID,
		OPT_TID, OPT_MAXDEPTH, OPT_MATCH, OPT_GZIP, OPT_HELP, OPT_VERSION
	};
	static const struct option longopts[] = {
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "abs", no_argument, NULL, OPT_ABS },
		{ "min-duration", required_argument, NULL, OPT_MIN },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "max-depth", required_argument, NULL, OPT_MAXDEPTH },
		{ "match", required_argument, NULL, OPT_MATCH },
		{ "gzip", no_argument, NULL, OPT_GZIP },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	const char *out_name = NULL;
	int fd = STDIN_FILENO, c, err, gzip = 0;
	unsigned char magic[MT_MAGIC_LEN];
	ssize_t got = 0;

	mt_set_progname(argv[0]);
	mt_finish_on_interrupt();
	while ((c = getopt_long(argc, argv, "o:v", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FROM:
			opt_from = duration_arg(optarg, "--from");
			have_from = 1;
			break;
		case OPT_TO:
			opt_to = duration_arg(optarg, "--to");
			have_to = 1;
			break;
		case OPT_DURATION:
			opt_dur = duration_arg(optarg, "--duration");
			break;
		case OPT_ABS:
			absolute = 1;
			break;
		case OPT_MIN:
			min_dur = duration_arg(optarg, "--min-duration");
			have_min = 1;
			break;
		case OPT_PID:
			parse_list(&pids, optarg, "--pid");
			break;
		case OPT_TID:
			parse_list(&tids, optarg, "--tid");
			break;
		case OPT_MATCH: {
			int code;
			PCRE2_SIZE at;

			match_re = pcre2_compile((PCRE2_SPTR)optarg, PCRE2_ZERO_TERMINATED,
						 0, &code, &at, NULL);
			if (!match_re) {
				PCRE2_UCHAR msg[256];

				pcre2_get_error_message(code, msg, sizeof(msg));
				die(MT_EXIT_USAGE, "--match %s: at offset %zu: %s", optarg,
				    (size_t)at, (char *)msg);
			}
			match_md = pcre2_match_data_create_from_pattern(match_re, NULL);
			if (!match_md)
				die(MT_EXIT_SYSTEM, "out of memory");
			break;
		}
		case OPT_MAXDEPTH: {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (end == optarg || *end || v < -1000000 || v > 1000000)
				die(MT_EXIT_USAGE, "--max-depth %s: expected a number", optarg);
			max_depth = (int32_t)v;
			have_max_depth = 1;
			break;
		}
		case 'o':
			out_name = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case OPT_GZIP:
			gzip = 1;
			break;
		case OPT_HELP:
			usage_ok(USAGE);
		case OPT_VERSION:
			version_ok();
		default:
			usage_fail(USAGE);
		}
	}
	if (argc - optind > 1)
		usage_fail(USAGE);
	if (have_to && opt_dur != MT_NONE64)
		die(MT_EXIT_USAGE, "--to and --duration: give one of them");
	if (have_to && have_from && opt_to < opt_from)
		die(MT_EXIT_USAGE, "--to is before --from");
	if (optind < argc && strcmp(argv[optind], "-"))
		in_name = argv[optind];
	fd = open_input_or_die(optind < argc ? argv[optind] : NULL);
	if (out_name)
		output_to_or_die(out_name);
	gzip |= output_name_is_gz(out_name);
	/* what kind of input: sniff the magic */
	while (got < (ssize_t)sizeof(magic)) {
		ssize_t n = read(fd, magic + got, sizeof(magic) - (size_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", in_name);
		if (!n)
			break;
		got += n;
	}
	if (!have_to && opt_dur == MT_NONE64)
		win_to = MT_NONE64;
	src_fd = fd;
	if (got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
		memcpy(src_pre, magic, (size_t)got);
		src_pre_len = (size_t)got;
		if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
			die(MT_EXIT_SYSTEM, "out of memory");
		src_gz = 1;
		got = (ssize_t)src_read(magic, sizeof(magic));
		if (got < 8 || mt_get64(magic) != MT_FXT_MAGIC)
			die(MT_EXIT_DATA, "%s: gzip data holding no FXT file (an mt "
			    "stream must be given as it is)", in_name);
		peek_len = 8;
		memcpy(peek, magic, 8);
		if (gzip)
			output_gzip();
		fxt_run();
		inflateEnd(&zs);
		close_stdout_or_die();
		return MT_EXIT_OK;
	}
	if (got == 8 && mt_get64(magic) == MT_FXT_MAGIC) {
		memcpy(src_pre, magic, 8);
		src_pre_len = 8;
		if (gzip)
			output_gzip();
		fxt_run();
		close_stdout_or_die();
		return MT_EXIT_OK;
	}
	if (gzip)
		die(MT_EXIT_USAGE, "%s: an mt stream is written as it is: --gzip "
		    "and -o NAME.gz are for FXT input", in_name);
	if (have_max_depth || (!absolute && (have_from || have_to ||
					      opt_dur != MT_NONE64))) {
		fd = stream_first_pass(fd, magic, (size_t)got);
		got = 0;
	}
	if ((err = mt_reader_init_fd(&in, fd, magic, (size_t)got)))
		die_mt(err, "%s", in_name);
	if ((err = mt_writer_init_fd(&out, STDOUT_FILENO)))
		die_mt(err, "starting the stream");
	run();
	check(mt_writer_finish(&out));
	if (verbose || n_short)
		fprintf(stderr, "%s: %s: %llu records read, %llu written, %llu spans "
			"clipped, %llu shorter than --min-duration dropped\n",
			mt_progname(), in_name, n_in, n_kept, n_clipped, n_short);
	mt_reader_release(&in);
	mt_writer_release(&out);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
