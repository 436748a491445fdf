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
#include "stream.h"
#include "tidmap.h"
#include "wire.h"
#include "banned.h"

#define USAGE "usage: mt-slice [-v] [--from time] [--to time] [--duration time] [--abs] [--min-duration time] [--pid list] [--tid list] [--max-depth n] [--match regex] [--gzip] [-o output] [file]\n"

static const char *in_name = "<stdin>";
static struct mt_reader in;
static struct mt_writer out;

static uint64_t opt_from, opt_to = MT_NONE64, opt_dur = MT_NONE64, min_dur;
static int have_from, have_to, absolute, have_max_depth;
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
	if (opt_dur != MT_NONE64)
		win_to = win_from + opt_dur;
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

static void span(const struct mt_span *in_s)
{
	struct mt_span s = *in_s;

	see_time(s.start);
	if (!thread_kept(s.pid, s.tid))
		return;
	if (s.end - s.start < min_dur) {
		n_short++;
		return;
	}
	if (have_max_depth && s.depth >= max_depth)
		return;
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
 * its place in the file (a begin moved to the window's start, a span held
 * so that its parent comes first) is rewritten with its strings and thread
 * inline: by then its table indexes may mean something else.
 */

#define FXT_SIZE_MAX (MT_FXT_MAX_WORDS * 8)
#define FXT_MAGIC "\x10\x00\x04\x46\x78\x54\x16\x00"

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

static void buf_word(struct mt_buf *b, uint64_t w)
{
	unsigned char x[8];

	mt_put64(x, w);
	buf_add(b, x, 8);
}

static size_t words_of(size_t len)
{
	return (len + 7) / 8;
}

static void buf_stream(struct mt_buf *b, const char *s, size_t len)
{
	static const char zero[8];

	buf_add(b, s, len);
	if (len % 8)
		buf_add(b, zero, 8 - len % 8);
}

/* ---- rewriting event records ---- */

static uint64_t field(uint64_t w, unsigned lo, unsigned hi)
{
	return (w >> lo) & ((1ull << (hi - lo + 1)) - 1);
}

static uint64_t set_field(uint64_t w, unsigned lo, unsigned hi, uint64_t v)
{
	uint64_t m = ((1ull << (hi - lo + 1)) - 1) << lo;

	return (w & ~m) | (v << lo & m);
}

static size_t ref_words(unsigned ref)
{
	return ref & 0x8000 ? words_of(ref & 0x7fff) : 0;
}

/* Bytes of an event record up to the end of its arguments: what comes
 * after (a complete event's end, an id) is type-specific. */
static size_t body_len(const struct mt_fxt_event *ev)
{
	size_t w = 2 + (ev->thread.ref ? 0 : 2) + ref_words(ev->cat.ref) +
		   ref_words(ev->name.ref);
	unsigned i;

	for (i = 0; i < ev->nargs; i++)
		w += ev->args[i].size;
	return w * 8;
}

/* A bool argument set to true, its name inline. */
static void add_flag(struct mt_buf *args, unsigned *n, const char *name)
{
	size_t len = strlen(name);

	buf_word(args, 9 | (uint64_t)(1 + words_of(len)) << 4 |
		 (uint64_t)(0x8000 | len) << 16 | 1ull << 32);
	buf_stream(args, name, len);
	++*n;
}

/* The arguments of ev with their names and string values inline, appended
 * to b; those of unknown types are copied as they are. */
static void inline_args(struct mt_buf *b, unsigned *n,
			const struct mt_fxt_event *ev, const unsigned char *raw)
{
	size_t off = body_len(ev);
	unsigned i;

	for (i = 0; i < ev->nargs; i++)
		off -= ev->args[i].size * 8;
	for (i = 0; i < ev->nargs; off += ev->args[i].size * 8, i++) {
		const struct mt_fxt_arg *a = &ev->args[i];
		size_t nw = words_of(a->name.len), vw = 0;
		uint64_t h, value = 0;
		int has_word = 0;

		if (a->type > MT_FXT_ARG_BOOL || a->name.len > 0x7fff ||
		    (a->type == MT_FXT_ARG_STRING && a->s.len > 0x7fff)) {
			buf_add(b, raw + off, a->size * 8);
			++*n;
			continue;
		}
		h = a->type | (uint64_t)(a->name.len ? 0x8000 | a->name.len : 0) << 16;
		switch (a->type) {
		case MT_FXT_ARG_INT32:
		case MT_FXT_ARG_UINT32:
		case MT_FXT_ARG_BOOL:
			h |= (a->u & 0xffffffffu) << 32;
			break;
		case MT_FXT_ARG_INT64:
		case MT_FXT_ARG_UINT64:
		case MT_FXT_ARG_POINTER:
		case MT_FXT_ARG_KOID:
			value = a->u;
			has_word = 1;
			break;
		case MT_FXT_ARG_DOUBLE:
			memcpy(&value, &a->d, 8);
			has_word = 1;
			break;
		case MT_FXT_ARG_STRING:
			if (a->s.len)
				h |= (uint64_t)(0x8000 | a->s.len) << 32;
			vw = words_of(a->s.len);
			break;
		default:
			break;
		}
		h |= (uint64_t)(1 + nw + vw + (size_t)has_word) << 4;
		buf_word(b, h);
		buf_stream(b, a->name.p, a->name.len);
		if (has_word)
			buf_word(b, value);
		if (a->type == MT_FXT_ARG_STRING)
			buf_stream(b, a->s.p, a->s.len);
		++*n;
	}
}

/* Set the header's size from the buffer's length. */
static void seal(struct mt_buf *b)
{
	unsigned char *p = (unsigned char *)b->p;

	mt_put64(p, set_field(mt_get64(p), 4, 15, b->len / 8));
}

/*
 * The body of an event (header to the end of its arguments) with thread,
 * category, name and arguments inline, replacing b. Falls back on the
 * record as it is when the inline form would not fit in a record.
 */
static void save_body(struct mt_buf *b, const struct mt_fxt_record *rec)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	uint64_t h = rec->header;
	unsigned n = 0;

	mt_buf_reset(b);
	h = set_field(h, 24, 31, 0);
	h = set_field(h, 32, 47, ev->cat.len ? 0x8000 | ev->cat.len : 0);
	h = set_field(h, 48, 63, ev->name.len ? 0x8000 | ev->name.len : 0);
	if (ev->cat.len > 0x7fff || ev->name.len > 0x7fff)
		goto raw;
	buf_word(b, h);
	buf_word(b, ev->ts);
	buf_word(b, ev->thread.pid);
	buf_word(b, ev->thread.tid);
	buf_stream(b, ev->cat.p, ev->cat.len);
	buf_stream(b, ev->name.p, ev->name.len);
	inline_args(b, &n, ev, rec->raw);
	if (b->len / 8 + 2 + 2 * 3 > MT_FXT_MAX_WORDS)
		goto raw;
	seal(b);
	return;
raw:
	mt_buf_reset(b);
	buf_add(b, rec->raw, body_len(ev));
}

/*
 * Write body (from save_body, or a record's own bytes up to its arguments)
 * as an event of type etype at ts, with nextra arguments more from extra;
 * a complete event gets end. Arguments past 15 are left out.
 */
static void emit(struct mt_buf *o, const unsigned char *body, size_t len,
		 unsigned etype, uint64_t ts, uint64_t end,
		 const struct mt_buf *extra, unsigned nextra)
{
	uint64_t h = mt_get64(body);
	unsigned n = (unsigned)field(h, 20, 23);
	size_t i, off = 0;

	mt_buf_reset(o);
	buf_add(o, body, len);
	for (i = 0; i < nextra; i++) {
		size_t sz = field(mt_get64((unsigned char *)extra->p + off), 4, 15) * 8;

		if (n >= MT_FXT_MAX_ARGS || (o->len + sz) / 8 + 1 > MT_FXT_MAX_WORDS)
			break;
		buf_add(o, extra->p + off, sz);
		off += sz;
		n++;
	}
	if (etype == MT_FXT_EV_COMPLETE)
		buf_word(o, end);
	h = set_field(h, 16, 19, etype);
	h = set_field(h, 20, 23, n);
	mt_put64((unsigned char *)o->p, h);
	mt_put64((unsigned char *)o->p + 8, ts);
	seal(o);
}

/* ---- times: the window is in ns, records in ticks ---- */

static uint64_t to_ticks(uint64_t ns, uint64_t tps)
{
	if (tps == MT_FXT_TICKS_NS)
		return ns;
	return (uint64_t)((unsigned __int128)ns * tps / MT_FXT_TICKS_NS);
}

/* ---- threads and their open begins ---- */

enum { B_BEFORE, B_WRITTEN, B_DROPPED, B_PENDING };

struct open_begin {
	int state;
	uint64_t start;    /* ns, as read */
	uint64_t tps;
	struct mt_buf body; /* B_BEFORE, B_PENDING: from save_body() */
	struct mt_buf held; /* B_PENDING: records waiting for this one */
};

struct fthread {
	uint64_t pid, tid;
	struct open_begin *st;
	size_t n, cap;
};

static struct fthread *fth;
static size_t nfth, fthcap;

static struct fthread *fthread_get(uint64_t pid, uint64_t tid)
{
	size_t i;

	/* threads are few; the last one asked for is the likely one */
	static size_t last;

	if (last < nfth && fth[last].pid == pid && fth[last].tid == tid)
		return &fth[last];
	for (i = 0; i < nfth; i++)
		if (fth[i].pid == pid && fth[i].tid == tid)
			return &fth[last = i];
	if (nfth == fthcap) {
		size_t cap = fthcap ? fthcap * 2 : 16;
		struct fthread *v = realloc(fth, cap * sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
		fth = v;
		fthcap = cap;
	}
	memset(&fth[nfth], 0, sizeof(fth[nfth]));
	fth[nfth].pid = pid;
	fth[nfth].tid = tid;
	last = nfth;
	return &fth[nfth++];
}

static struct open_begin *push(struct fthread *t, int state, uint64_t start,
			       uint64_t tps)
{
	struct open_begin *b;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16, i;
		struct open_begin *v = realloc(t->st, cap * sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
		for (i = t->cap; i < cap; i++) {
			mt_buf_init(&v[i].body);
			mt_buf_init(&v[i].held);
		}
		t->st = v;
		t->cap = cap;
	}
	b = &t->st[t->n++];
	b->state = state;
	b->start = start;
	b->tps = tps;
	mt_buf_reset(&b->body);
	mt_buf_reset(&b->held);
	return b;
}

static struct mt_buf tmp_out, tmp_args;
static unsigned long long nf_in, nf_kept, nf_clipped, nf_short;

static void emit_out(void)
{
	out_bytes(tmp_out.p, tmp_out.len);
	nf_kept++;
}

/* The begins still open from before the window start at its start,
 * outermost first: something on their thread happens inside it. */
static void open_window(struct fthread *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		struct open_begin *b = &t->st[i];
		unsigned n = 0;

		if (b->state != B_BEFORE)
			continue;
		mt_buf_reset(&tmp_args);
		add_flag(&tmp_args, &n, "clipped start");
		emit(&tmp_out, (unsigned char *)b->body.p, b->body.len,
		     MT_FXT_EV_BEGIN, to_ticks(win_from, b->tps), 0, &tmp_args, n);
		emit_out();
		nf_clipped++;
		b->state = B_WRITTEN;
	}
}

/* An end at the window's end for a begin written, on a thread gone quiet. */
static void close_at_end(const struct fthread *t, const struct open_begin *b)
{
	unsigned char body[32];
	unsigned n = 0;

	mt_put64(body, MT_FXT_EVENT | 4 << 4 | MT_FXT_EV_END << 16);
	mt_put64(body + 8, 0);
	mt_put64(body + 16, t->pid);
	mt_put64(body + 24, t->tid);
	mt_buf_reset(&tmp_args);
	add_flag(&tmp_args, &n, "clipped end");
	emit(&tmp_out, body, sizeof(body), MT_FXT_EV_END,
	     to_ticks(win_to, b->tps), 0, &tmp_args, n);
	emit_out();
}

/* ---- complete events that start at the window's start: held ---- */

struct fheld {
	uint64_t pid, tid, end, start, seq;
	struct mt_buf rec;
};

static struct fheld *fheld;
static size_t nfheld, fheldcap;

static int by_nesting(const void *a, const void *b)
{
	const struct fheld *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->end != y->end) /* the longer one encloses */
		return x->end > y->end ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void fhold(uint64_t pid, uint64_t tid, uint64_t start, uint64_t end)
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
	h = &fheld[nfheld];
	h->pid = pid;
	h->tid = tid;
	h->start = start;
	h->end = end;
	h->seq = nfheld++;
	mt_buf_init(&h->rec);
	buf_add(&h->rec, tmp_out.p, tmp_out.len);
}

/* ---- events ---- */

static struct mt_buf saved;

static void fxt_complete(const struct mt_fxt_record *rec, uint64_t s, uint64_t e)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	uint64_t tps = rec->provider->ticks_per_second;
	uint64_t cs = s, ce = e;
	unsigned n = 0;

	if (e < s)
		return;
	if (e - s < min_dur) {
		nf_short++;
		return;
	}
	if (s >= win_to || (s < win_from && e <= win_from))
		return;
	mt_buf_reset(&tmp_args);
	if (s < win_from) {
		cs = win_from;
		add_flag(&tmp_args, &n, "clipped start");
	}
	if (win_to != MT_NONE64 && e > win_to) {
		ce = win_to;
		add_flag(&tmp_args, &n, "clipped end");
	}
	if (n)
		nf_clipped++;
	if (cs == win_from && have_from) {
		save_body(&saved, rec);
		emit(&tmp_out, (unsigned char *)saved.p, saved.len,
		     MT_FXT_EV_COMPLETE, cs == s ? ev->ts : to_ticks(cs, tps),
		     ce == e ? ev->end_ts : to_ticks(ce, tps), &tmp_args, n);
		fhold(ev->thread.pid, ev->thread.tid, s, ce);
		return;
	}
	if (!n) {
		out_bytes(rec->raw, rec->size);
		nf_kept++;
		return;
	}
	emit(&tmp_out, rec->raw, body_len(ev), MT_FXT_EV_COMPLETE,
	     cs == s ? ev->ts : to_ticks(cs, tps),
	     ce == e ? ev->end_ts : to_ticks(ce, tps), &tmp_args, n);
	emit_out();
}

/* Begin/end pairs as they are, clipped at the edges (no --min-duration). */
static void fxt_pair(const struct mt_fxt_record *rec, struct fthread *t,
		     uint64_t ts)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	uint64_t tps = rec->provider->ticks_per_second;
	struct open_begin *b;

	if (ev->type == MT_FXT_EV_BEGIN) {
		if (ts < win_from) {
			b = push(t, B_BEFORE, ts, tps);
			save_body(&b->body, rec);
			return;
		}
		open_window(t);
		push(t, ts >= win_to ? B_DROPPED : B_WRITTEN, ts, tps);
		if (ts < win_to) {
			out_bytes(rec->raw, rec->size);
			nf_kept++;
		}
		return;
	}
	if (!t->n)
		return; /* an end without a begin: readers ignore it */
	if (ts > win_from)
		open_window(t);
	b = &t->st[--t->n];
	if (b->state != B_WRITTEN)
		return;
	if (win_to == MT_NONE64 || ts <= win_to) {
		out_bytes(rec->raw, rec->size);
		nf_kept++;
		return;
	}
	mt_buf_reset(&tmp_args);
	{
		unsigned n = 0;

		add_flag(&tmp_args, &n, "clipped end");
		emit(&tmp_out, rec->raw, body_len(ev), MT_FXT_EV_END,
		     to_ticks(win_to, tps), 0, &tmp_args, n);
	}
	emit_out();
	nf_clipped++;
}

/*
 * Begin/end pairs under --min-duration: the length is known at the end,
 * where the pair becomes one complete event. Children end first: one that
 * starts with its parent waits in the parent's held records, so that the
 * parent is written before it.
 */
static void pending_done(struct fthread *t, uint64_t e, int ended,
			 const struct mt_fxt_record *end_rec)
{
	struct open_begin *b = &t->st[t->n - 1];
	uint64_t s = b->start, cs = s > win_from ? s : win_from, ce = e;
	struct mt_buf group = MT_BUF_INIT;
	unsigned n = 0;
	int keep;

	if (b->state == B_DROPPED) {
		t->n--;
		return;
	}
	keep = s < win_to && (s >= win_from || e > win_from);
	if (ended && e - s < min_dur) {
		nf_short++;
		keep = 0;
	}
	if (keep) {
		int complete = ended || win_to != MT_NONE64;

		mt_buf_reset(&tmp_args);
		if (ended)
			inline_args(&tmp_args, &n, &end_rec->u.event, end_rec->raw);
		if (s < win_from)
			add_flag(&tmp_args, &n, "clipped start");
		if (win_to != MT_NONE64 && (e > win_to || !ended)) {
			ce = win_to;
			add_flag(&tmp_args, &n, "clipped end");
		}
		if (s < win_from || ce != e || !ended)
			nf_clipped++;
		emit(&tmp_out, (unsigned char *)b->body.p, b->body.len,
		     complete ? MT_FXT_EV_COMPLETE : MT_FXT_EV_BEGIN,
		     to_ticks(cs, b->tps), to_ticks(ce, b->tps), &tmp_args, n);
		buf_add(&group, tmp_out.p, tmp_out.len);
		nf_kept++;
	}
	buf_add(&group, b->held.p, b->held.len);
	t->n--;
	if (t->n && t->st[t->n - 1].state == B_PENDING &&
	    (t->st[t->n - 1].start > win_from ? t->st[t->n - 1].start : win_from) == cs)
		buf_add(&t->st[t->n - 1].held, group.p, group.len);
	else
		out_bytes(group.p, group.len);
	mt_buf_release(&group);
}

static void fxt_pending(const struct mt_fxt_record *rec, struct fthread *t,
			uint64_t ts)
{
	if (rec->u.event.type == MT_FXT_EV_BEGIN) {
		struct open_begin *b = push(t, ts >= win_to ? B_DROPPED : B_PENDING,
					    ts, rec->provider->ticks_per_second);

		if (b->state == B_PENDING)
			save_body(&b->body, rec);
		return;
	}
	if (t->n)
		pending_done(t, ts, 1, rec);
}

/* ---- FXT --match and --max-depth: a first pass decides ---- */

/*
 * Perfetto gives a slice its depth from the slices open on its thread when
 * it starts, in (start, file order): complete events come in no such order
 * (mt-fxt writes them when they end), so the decision needs a pass of its
 * own. The first pass copies the input to a temporary file and notes every
 * slice (complete event, or begin with its end) as a fixed record; those
 * are sorted on disk by (thread, start, file order) in runs merged a few at
 * a time, and replayed the way Perfetto nests them, one thread's stack at a
 * time: a slice is kept when it is shallow enough and, under --match,
 * matches, lies in a match or holds one. The decision, one byte a slice in
 * file order, is written to a third temporary file that the second pass,
 * the ordinary one over the copy, reads as it goes. Memory stays bounded by
 * the threads, the stack depth and the fixed buffers; the temporary files
 * grow with the input.
 */
enum { FX_PLAIN, FX_SCAN, FX_COLLECT, FX_APPLY };

/* the earliest event time, found by a scan pass */
static int64_t fx_min_ts = INT64_MAX;
static int fx_pass;

struct srec {
	uint64_t start, end, seq; /* ns; end UINT64_MAX: never ends */
	uint32_t th, match;       /* match: eligible and the name matches */
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
		die_errno(MT_EXIT_SYSTEM, "%s: the temporary file",
			  match_re ? "--match" : "--max-depth");
}

static FILE *fx_tmp(void)
{
	FILE *f = tmpfile();

	if (!f)
		die_errno(MT_EXIT_SYSTEM, "%s: a temporary file",
			  match_re ? "--match" : "--max-depth");
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
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
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

static void note_slice(uint32_t th, uint64_t start, uint64_t end, uint64_t seq,
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
	r->start = start;
	r->end = end;
	r->seq = seq;
	r->th = th;
	r->match = (uint32_t)match;
}

/* threads of the first pass, with their open begins */
struct copen {
	uint64_t start, seq;
	int match;
};

struct cthread {
	uint64_t pid, tid;
	struct copen *st;
	size_t n, cap;
};

static struct cthread *cth;
static size_t ncth, cthcap;

static uint32_t cthread_get(uint64_t pid, uint64_t tid)
{
	static size_t last;
	size_t i;

	if (last < ncth && cth[last].pid == pid && cth[last].tid == tid)
		return (uint32_t)last;
	for (i = 0; i < ncth; i++)
		if (cth[i].pid == pid && cth[i].tid == tid)
			return (uint32_t)(last = i);
	if (ncth == cthcap) {
		size_t cap = cthcap ? cthcap * 2 : 16;
		struct cthread *v = realloc(cth, cap * sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
		cth = v;
		cthcap = cap;
	}
	memset(&cth[ncth], 0, sizeof(cth[ncth]));
	cth[ncth].pid = pid;
	cth[ncth].tid = tid;
	return (uint32_t)(last = ncth++);
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

/* Whether a slice [s, e) would be written at all: a match outside the
 * window, or too short, does not count. */
static int fx_eligible(uint64_t s, uint64_t e)
{
	if (e != UINT64_MAX && e - s < min_dur)
		return 0;
	return s < win_to && (s >= win_from || e > win_from);
}

static void fx_collect(const struct mt_fxt_event *ev, uint64_t ts, uint64_t end)
{
	uint32_t th = cthread_get(ev->thread.pid, ev->thread.tid);
	struct cthread *t = &cth[th];
	struct copen *b;

	switch (ev->type) {
	case MT_FXT_EV_COMPLETE:
		if (end >= ts)
			note_slice(th, ts, end, fx_seq,
				   fx_eligible(ts, end) && fxt_name_matches(ev));
		fx_seq++;
		return;
	case MT_FXT_EV_BEGIN:
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 16;
			struct copen *v = realloc(t->st, cap * sizeof(*v));

			if (!v)
				die(MT_EXIT_SYSTEM, "out of memory");
			t->st = v;
			t->cap = cap;
		}
		b = &t->st[t->n++];
		b->start = ts;
		b->seq = fx_seq++;
		b->match = fxt_name_matches(ev);
		return;
	case MT_FXT_EV_END:
		if (!t->n)
			return;
		b = &t->st[--t->n];
		note_slice(th, b->start, ts < b->start ? b->start : ts, b->seq,
			   b->match && fx_eligible(b->start, ts));
		return;
	default:
		return;
	}
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

/* ---- the replay: Perfetto's nesting of one thread's slices ---- */

struct rframe {
	uint64_t start, end, seq;
	int32_t depth;
	int match, in_match, holds_match;
};

static struct rframe *rst;
static size_t rsp, rcap;
static uint32_t rth = UINT32_MAX;

static void rpop(void)
{
	const struct rframe *f = &rst[--rsp];
	unsigned char one = 1;

	if (have_max_depth && f->depth >= max_depth)
		return;
	if (match_re && !f->match && !f->in_match && !f->holds_match)
		return;
	pio(1, fx_dec, &one, 1, f->seq);
}

/*
 * A zero-length match at the very end of its parent: Perfetto closes the
 * parent first and puts it beside it, the mt stream (which knows) beneath
 * it; like --match on the mt stream, a slice that starts there and is
 * shallower than its depth beneath that parent holds it.
 */
static int z_has;
static uint64_t z_at;
static int64_t z_depth;

/* SliceTracker::MaybeCloseStack for slices whose ends are known, with its
 * quirk: an ended slice pops the top of the stack. */
static void replay(const struct srec *r)
{
	struct rframe *f;
	size_t i;

	size_t k = 0;

	if (r->th != rth) {
		while (rsp)
			rpop();
		rth = r->th;
		z_has = 0;
	}
	for (i = rsp; i-- > 0;) {
		const struct rframe *s = &rst[i];

		if (s->end < r->start || (s->end == r->start &&
		    !(s->start == s->end && r->start == r->end))) {
			/* written after r, ending where r is: its parent,
			 * unless held for its own parent (which tells
			 * nothing) */
			k += r->start == r->end && s->end == r->start &&
			     s->seq > r->seq && !(i && rst[i - 1].start ==
			     s->start && rst[i - 1].seq < s->seq);
			rpop();
			continue;
		}
		if (r->start < s->end && r->end > s->end)
			return; /* partly overlaps: Perfetto drops it */
	}
	if (rsp == rcap) {
		size_t cap = rcap ? rcap * 2 : 64;
		struct rframe *v = realloc(rst, cap * sizeof(*v));

		if (!v)
			die(MT_EXIT_SYSTEM, "out of memory");
		rst = v;
		rcap = cap;
	}
	f = &rst[rsp];
	f->start = r->start;
	f->end = r->end;
	f->seq = r->seq;
	f->depth = rsp > INT32_MAX ? INT32_MAX : (int32_t)rsp;
	f->match = r->match && (!have_max_depth || f->depth < max_depth);
	f->in_match = f->match || (rsp && rst[rsp - 1].in_match);
	f->holds_match = 0;
	if (z_has && r->start != z_at)
		z_has = 0;
	if (z_has && r->end != r->start && (size_t)z_depth > rsp)
		f->holds_match = 1;
	if (f->match && r->start == r->end &&
	    (!z_has || z_depth < (int64_t)(rsp + k))) {
		z_has = 1;
		z_at = r->start;
		z_depth = (int64_t)(rsp + k);
	}
	if (f->match)
		for (i = rsp; i-- > 0 && !rst[i].holds_match;)
			rst[i].holds_match = 1;
	rsp++;
}

/* After the first pass: the open begins end never, the slices are sorted
 * and replayed, the decisions written. */
static uint64_t dec_total;

static void fx_decide(void)
{
	size_t i;

	for (i = 0; i < ncth; i++) {
		struct cthread *t = &cth[i];

		while (t->n) {
			struct copen *b = &t->st[--t->n];

			note_slice((uint32_t)i, b->start, UINT64_MAX, b->seq,
				   b->match && fx_eligible(b->start, UINT64_MAX));
		}
		free(t->st);
	}
	run_out();
	free(run_buf);
	run_buf = NULL;
	fx_dec = fx_tmp();
	if (ftruncate(fileno(fx_dec), (off_t)fx_seq))
		die_errno(MT_EXIT_SYSTEM, "a temporary file");
	cursors = malloc(SORT_FANIN * sizeof(*cursors));
	if (!cursors)
		die(MT_EXIT_SYSTEM, "out of memory");
	merge_down();
	merge(fx_runs, 0, nruns, replay);
	while (rsp)
		rpop();
	free(cursors);
	free(rst);
	free(runs);
	fclose(fx_runs);
	dec_total = fx_seq;
	fx_seq = 0;
}

static unsigned char dec_buf[1 << 16];
static size_t dec_pos, dec_len;

/* The second pass: whether the next slice (complete event or begin) in
 * file order is kept. */
static int fx_kept(void)
{
	if (dec_pos == dec_len) {
		size_t k = sizeof(dec_buf);

		if (fx_seq + k > (uint64_t)dec_total)
			k = (size_t)(dec_total - fx_seq);
		if (!k)
			return 0;
		pio(0, fx_dec, dec_buf, k, fx_seq);
		dec_pos = 0;
		dec_len = k;
	}
	fx_seq++;
	return dec_buf[dec_pos++];
}

static void fxt_event(const struct mt_fxt_record *rec)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	uint64_t tps = rec->provider->ticks_per_second;
	int64_t ts, end = 0;
	struct fthread *t;

	if (mt_fxt_ticks_to_ns(ev->ts, tps, &ts) ||
	    (ev->type == MT_FXT_EV_COMPLETE &&
	     mt_fxt_ticks_to_ns(ev->end_ts, tps, &end)))
		return; /* readers drop it too */
	if (fx_pass == FX_SCAN) {
		if (ts < fx_min_ts)
			fx_min_ts = ts;
		return;
	}
	see_time((uint64_t)ts);
	if (!thread_kept((uint32_t)ev->thread.pid, (uint32_t)ev->thread.tid))
		return;
	if (fx_pass == FX_COLLECT) {
		fx_collect(ev, (uint64_t)ts, (uint64_t)end);
		return;
	}
	if (fx_pass == FX_APPLY && (ev->type == MT_FXT_EV_COMPLETE ||
				    ev->type == MT_FXT_EV_BEGIN) && !fx_kept()) {
		/* a begin left out still takes its end */
		if (ev->type == MT_FXT_EV_BEGIN)
			push(fthread_get(ev->thread.pid, ev->thread.tid), B_DROPPED,
			     (uint64_t)ts, tps);
		return;
	}
	switch (ev->type) {
	case MT_FXT_EV_COMPLETE:
		fxt_complete(rec, (uint64_t)ts, (uint64_t)end);
		return;
	case MT_FXT_EV_BEGIN:
	case MT_FXT_EV_END:
		t = fthread_get(ev->thread.pid, ev->thread.tid);
		if (min_dur)
			fxt_pending(rec, t, (uint64_t)ts);
		else
			fxt_pair(rec, t, (uint64_t)ts);
		return;
	default:
		if (!time_kept((uint64_t)ts))
			return;
		if (!min_dur)
			open_window(fthread_get(ev->thread.pid, ev->thread.tid));
		out_bytes(rec->raw, rec->size);
		nf_kept++;
		return;
	}
}

static void fxt_finish(void)
{
	size_t i, j;

	for (i = 0; i < nfth; i++) {
		struct fthread *t = &fth[i];

		if (min_dur) {
			while (t->n)
				pending_done(t, win_to, 0, NULL);
			continue;
		}
		for (j = t->n; j-- > 0;)
			if (t->st[j].state == B_WRITTEN && win_to != MT_NONE64) {
				close_at_end(t, &t->st[j]);
				nf_clipped++;
			}
	}
	if (nfheld)
		qsort(fheld, nfheld, sizeof(*fheld), by_nesting);
	for (i = 0; i < nfheld; i++) {
		out_bytes(fheld[i].rec.p, fheld[i].rec.len);
		mt_buf_release(&fheld[i].rec);
	}
	nf_kept += nfheld;
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
		if (fx_pass == FX_SCAN || fx_pass == FX_COLLECT) {
			if (fx_pass == FX_SCAN &&
			    fwrite(fxt_rec, size, 1, fx_copy) != 1)
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
	 * The input is read once: into a temporary copy when more than one
	 * pass is needed. A window relative to the start of the trace needs
	 * the earliest event first (writers put events in any time order);
	 * --match and --max-depth need a pass that decides, then one that
	 * writes.
	 */
	int relative = !absolute && (have_from || have_to || opt_dur != MT_NONE64);

	if (relative || match_re || have_max_depth) {
		fx_pass = FX_SCAN;
		fx_copy = fx_tmp();
		fxt_pass();
		fx_rewind();
		if (fx_min_ts != INT64_MAX)
			see_time((uint64_t)fx_min_ts);
	}
	if (match_re || have_max_depth) {
		fx_pass = FX_COLLECT;
		fx_runs = fx_tmp();
		fxt_pass();
		fx_rewind();
		fx_decide();
	}
	fx_pass = match_re || have_max_depth ? FX_APPLY : FX_PLAIN;
	fxt_pass();
	fxt_finish();
	out_flush();
	if (verbose || nf_short)
		fprintf(stderr, "%s: %s: %llu records read, %llu written, %llu spans "
			"clipped, %llu shorter than --min-duration dropped\n",
			mt_progname(), in_name, nf_in, nf_kept, nf_clipped, nf_short);
	if (fx_copy)
		fclose(fx_copy);
	if (fx_dec)
		fclose(fx_dec);
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
			if (thread_kept(r.u.error.pid, r.u.error.tid) &&
			    time_kept(r.u.error.time))
				keep(&r);
			break;
		case MT_REC_MARK:
			see_time(r.u.mark.time);
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
		if (got < 8 || memcmp(magic, FXT_MAGIC, 8))
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
	if (got == 8 && !memcmp(magic, FXT_MAGIC, 8)) {
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
