/*
 * mt-report: calls, total and self time per function of an mt stream of
 * spans or an FXT file; or every call in order, or collapsed stacks
 * (views.c). See docs/mt-report.1 and report.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "die.h"
#include "err.h"
#include "extsort.h"
#include "fxtread.h"
#include "gzin.h"
#include "idlist.h"
#include "kind.h"
#include "intern.h"
#include "nest.h"
#include "names.h"
#include "quote.h"
#include "stream.h"
#include "tidmap.h"
#include "tidtable.h"
#include "wire.h"
#include "xalloc.h"
#include "cmp.h"
#include "report.h"
#include "banned.h"

#define USAGE "usage: mt-report [-v] [--calls] [--folded] [--per-thread] [--from time] [--to time] [--duration time] [--abs] [--min-duration time] [--max-depth n] [--by key] [--json] [-n rows] [--kind list] [--pid list] [--tid list] [-o output] [file]\n"

static struct mt_filter_io io;

/* ---- options ---- */

enum sort_key { BY_TOTAL, BY_SELF, BY_CALLS };
static enum sort_key by = BY_TOTAL;
static enum mode mode = MODE_REPORT;
static struct calls_opts copts = { .to = MT_NONE64, .dur = MT_NONE64 };
static int json;
static size_t limit = SIZE_MAX;
static unsigned kinds = 1u << MT_SPAN_FUNCTION; /* bit per enum mt_span_kind */

static struct mt_idlist pids, tids; /* --pid, --tid */

static void kinds_parse(const char *arg)
{
	const char *s = arg;

	kinds = 0;
	while (*s) {
		size_t n = strcspn(s, ","), k;

		if (n == 3 && !memcmp(s, "all", 3)) {
			kinds = ~0u;
		} else {
			for (k = 1; k < MT_SPAN_NKINDS; k++)
				if (strlen(mt_span_kind_names[k]) == n &&
				    !memcmp(s, mt_span_kind_names[k], n))
					break;
			if (k == MT_SPAN_NKINDS)
				die(MT_EXIT_USAGE, "--kind %s: expected kinds separated "
				    "by commas: function, untraced, syscall, kernel, "
				    "gap, interrupt, all", arg);
			kinds |= 1u << k;
		}
		s += n + (s[n] == ',');
	}
	if (!kinds)
		die(MT_EXIT_USAGE, "--kind %s: no kind given", arg);
}

/* ---- the distribution of a function's call times: a bounded sketch ---- */

/*
 * A log-bucketed histogram (HdrHistogram's layout): values below 64 have
 * a bucket each (octave 0); from 64 on, each power of two [2^e, 2^e+1) is
 * cut into 64 buckets of 2^(e-6) (octave e-5), so that a bucket's middle
 * lies within 1/128 of any value in it (exact below 128). A function keeps
 * the octaves from its shortest call's to its longest's, 64 counts each:
 * memory grows with the spread of its times, never with its calls.
 */
#define SK_SUB 64  /* buckets an octave */
#define SK_NOCT 59 /* octave 0, then e = 6 .. 63 */

struct sketch {
	uint64_t *c;    /* octaves [lo, lo + n), SK_SUB counts each */
	size_t cap;     /* in counts */
	unsigned lo, n;
};

static void sk_index(uint64_t v, unsigned *oct, unsigned *slot)
{
	unsigned e;

	if (v < SK_SUB) {
		*oct = 0;
		*slot = (unsigned)v;
		return;
	}
	e = 63 - (unsigned)__builtin_clzll(v);
	*oct = e - 5;
	*slot = (unsigned)(v >> (e - 6)) - SK_SUB;
}

/* The middle of a bucket: the value it stands for. */
static uint64_t sk_value(unsigned oct, unsigned slot)
{
	uint64_t w;

	if (!oct)
		return slot;
	w = 1ull << (oct - 1);
	return ((uint64_t)(slot + SK_SUB) << (oct - 1)) + w / 2;
}

static void sk_add(struct sketch *s, uint64_t v)
{
	unsigned oct, slot;

	sk_index(v, &oct, &slot);
	if (!s->n) {
		grow_or_die(&s->c, &s->cap, SK_SUB - 1, sizeof(*s->c));
		s->lo = oct;
		s->n = 1;
	} else if (oct < s->lo) {
		unsigned more = s->lo - oct;

		grow_or_die(&s->c, &s->cap, (size_t)(s->n + more) * SK_SUB - 1,
			    sizeof(*s->c));
		memmove(s->c + (size_t)more * SK_SUB, s->c,
			(size_t)s->n * SK_SUB * sizeof(*s->c));
		memset(s->c, 0, (size_t)more * SK_SUB * sizeof(*s->c));
		s->lo = oct;
		s->n += more;
	} else if (oct >= s->lo + s->n) {
		/* grow_or_die zeroes what it adds */
		s->n = oct - s->lo + 1;
		grow_or_die(&s->c, &s->cap, (size_t)s->n * SK_SUB - 1,
			    sizeof(*s->c));
	}
	s->c[(size_t)(oct - s->lo) * SK_SUB + slot]++;
}

/* The nearest-rank q/100 quantile of the n values of s, the value of rank
 * ceil(q * n / 100): the first and the last exact, another its bucket's
 * middle kept within [min, max]. */
static uint64_t sk_quantile(const struct sketch *s, uint64_t n, unsigned q,
			    uint64_t min, uint64_t max)
{
	uint64_t r = (n * q + 99) / 100, seen = 0, v = max;
	size_t i;

	if (r <= 1)
		return min;
	if (r >= n)
		return max;
	for (i = 0; i < (size_t)s->n * SK_SUB; i++) {
		seen += s->c[i];
		if (seen >= r) {
			v = sk_value(s->lo + (unsigned)(i / SK_SUB),
				     (unsigned)(i % SK_SUB));
			break;
		}
	}
	return v < min ? min : v > max ? max : v;
}

/* ---- the calls, gathered from either input ---- */

struct fn {
	uint64_t calls, total, self;
	uint64_t min, median, p99, max;
	uint32_t onstack; /* open calls of it on the thread being walked */
	uint32_t id;
	struct sketch sk;
};

static struct fn *fns; /* by name id */
static size_t fns_cap;

/*
 * Every counted span, 32 bytes (struct call, report.h), goes through an
 * external sort (common/extsort.h) by (thread, start, depth, end): calls
 * are nested by their times, and the stream leaves the order of spans to
 * the producer (mt-stacks writes them when they end, but parents before
 * children among equal starts; mt-slice --match walks back through them).
 */

#define SORT_RUN (1u << 15) /* records sorted in memory at a time */
#define SORT_FANIN 32       /* runs merged at a time */

static struct mt_extsort calls;
static struct mt_tidmap threads;
struct mt_intern names;
static uint64_t nspans, nother[MT_SPAN_NKINDS + 1], nfiltered, nunended;
static uint64_t first_start = MT_NONE64; /* of a call: the trace's start */

/* The functions mt-record --max-overhead stopped recording (a MARK of
 * kind off; in an FXT file, an instant "recording off" with its
 * "function"): when, so that the report says their counts are partial. */
static struct off {
	char *name;
	size_t len;
	uint64_t time;
} *offs;
static size_t noffs, offs_cap;

static void off_add(const char *name, size_t len, uint64_t time)
{
	grow_or_die(&offs, &offs_cap, noffs + 1, sizeof(*offs));
	offs[noffs].name = xmalloc(len + 1);
	memcpy(offs[noffs].name, name, len);
	offs[noffs].name[len] = '\0';
	offs[noffs].len = len;
	offs[noffs++].time = time;
}
static struct { uint32_t pid, tid; } *thread_of; /* by index */
static size_t thread_cap;

void thread_ids(uint32_t i, uint32_t *pid, uint32_t *tid)
{
	*pid = thread_of[i].pid;
	*tid = thread_of[i].tid;
}

static void sort_check(int err)
{
	if (err)
		die_mt(err, "sorting the calls in a temporary file");
}

/* The call (or with CALL_INSTANT in flags, the instant) of (pid, tid)
 * into the sort, unless --pid, --tid or --kind leave it out. */
static void add_call(uint32_t pid, uint32_t tid, uint64_t start, uint64_t end,
		     int32_t depth, unsigned kind, const char *name, size_t len,
		     uint32_t flags)
{
	struct call c;
	struct fn *f;
	int is_new = 0;

	if (!(flags & CALL_INSTANT))
		nspans++;
	if (!mt_idlist_has(&pids, pid) || !mt_idlist_has(&tids, tid)) {
		nfiltered += !(flags & CALL_INSTANT);
		return;
	}
	if (!(flags & CALL_INSTANT) && (kind >= MT_SPAN_NKINDS || !(kinds & (1u << kind)))) {
		nother[kind < MT_SPAN_NKINDS ? kind : MT_SPAN_NKINDS]++;
		return;
	}
	memset(&c, 0, sizeof(c));
	if (mt_tidmap_get(&threads, pid, tid, &c.thread, &is_new) ||
	    mt_intern_get(&names, name, len, &c.fn, NULL))
		die(MT_EXIT_SYSTEM, "out of memory");
	if (is_new) {
		grow_or_die(&thread_of, &thread_cap, c.thread, sizeof(*thread_of));
		thread_of[c.thread].pid = pid;
		thread_of[c.thread].tid = tid;
	}
	c.start = start;
	c.end = end < start || (flags & CALL_INSTANT) ? start : end;
	/* an instant after every call at its time: inside them */
	c.depth = flags & CALL_INSTANT ? INT32_MAX : depth;
	c.flags = flags;
	sort_check(mt_extsort_add(&calls, &c));
	grow_or_die(&fns, &fns_cap, c.fn, sizeof(*fns));
	if (flags & CALL_INSTANT)
		return;
	if (c.start < first_start)
		first_start = c.start;
	if (mode != MODE_REPORT)
		return; /* the report's figures: not --calls' nor --folded's */
	f = &fns[c.fn];
	if (!f->calls || c.end - c.start < f->min)
		f->min = c.end - c.start;
	if (c.end - c.start > f->max)
		f->max = c.end - c.start;
	f->calls++;
	sk_add(&f->sk, c.end - c.start);
}

/* ---- reading the input, as it comes, through zlib when gzip'd ---- */

static unsigned char in_buf[1 << 16];
static size_t in_pos, in_len;

/* The input's bytes (mt_read_fn), read many records at a time. */
static ssize_t in_read(void *ctx, void *p, size_t n)
{
	if (in_pos == in_len) {
		ssize_t k;

		do
			k = read(io.in_fd, in_buf, sizeof(in_buf));
		while (k < 0 && errno == EINTR);
		if (k < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", io.in_name);
		in_pos = 0;
		in_len = (size_t)k;
	}
	if (n > in_len - in_pos)
		n = in_len - in_pos;
	memcpy(p, in_buf + in_pos, n);
	in_pos += n;
	return (ssize_t)n;
}

/* Fill the buffer with the first 8 bytes or all there are, to sniff. */
static void in_sniff(void)
{
	while (in_len < 8) {
		ssize_t k = read(io.in_fd, in_buf + in_len, sizeof(in_buf) - in_len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", io.in_name);
		if (!k)
			break;
		in_len += (size_t)k;
	}
}

static struct mt_gzin gz;

/* The decompressed bytes (mt_read_fn); dies on bad gzip data. */
static ssize_t gz_read(void *ctx, void *p, size_t n)
{
	ssize_t k = mt_gzin_read(&gz, p, n);

	if (k == MT_ETRUNCATED)
		die(MT_EXIT_DATA, "%s: gzip data ends early", io.in_name);
	if (k < 0 && gz.why)
		die(MT_EXIT_DATA, "%s: bad gzip data: %s", io.in_name, gz.why);
	if (k < 0)
		die(MT_EXIT_DATA, "%s: bad gzip data", io.in_name);
	return k;
}

/* ---- an mt stream ---- */

/* --calls: a mark of a thread, an instant named by its kind, as mt-fxt
 * puts it on the thread's track (decoder sync points and frequencies are
 * not); a stop indicator's region a call "hit SYMBOL" where mt-fxt puts
 * it, magic-trace's hits thread. */
static void stream_mark(const struct mt_reader *r, const struct mt_mark *m)
{
	const char *kind, *text;
	size_t klen, tlen = 0;
	char *name;

	if (m->pid == MT_NONE32 || m->tid == MT_NONE32 || m->time == MT_NONE64 ||
	    m->kind == MT_MARK_PSB || m->kind == MT_MARK_CBR)
		return;
	if (m->kind == MT_MARK_REGION) {
		text = m->text ? mt_reader_str(r, m->text, &tlen) : NULL;
		name = xmalloc(4 + tlen + 1);
		memcpy(name, "hit ", 4);
		if (text)
			memcpy(name + 4, text, tlen);
		add_call(MT_HITS_PID, MT_HITS_TID, m->start <= m->time ? m->start : m->time,
			 m->time, 0, MT_SPAN_FUNCTION, name, 4 + (text ? tlen : 0), 0);
		free(name);
		return;
	}
	kind = m->name ? mt_reader_str(r, m->name, &klen) : NULL;
	if (!kind) {
		kind = m->kind < MT_MARK_NKINDS && mt_mark_kind_names[m->kind] ?
			       mt_mark_kind_names[m->kind] : "mark";
		klen = strlen(kind);
	}
	add_call(m->pid, m->tid, m->time, m->time, 0, 0, kind, klen, CALL_INSTANT);
}

static void stream_calls(mt_read_fn src, const void *pre, size_t pre_len)
{
	struct mt_reader r;
	struct mt_record rec;
	int got;

	if (mt_reader_init_fn(&r, src, NULL, pre, pre_len))
		die(MT_EXIT_SYSTEM, "out of memory");
	while ((got = mt_reader_next(&r, &rec)) > 0) {
		const struct mt_span *s = &rec.u.span;
		const char *name;
		size_t len;

		if (rec.type == MT_REC_MARK && rec.u.mark.kind == MT_MARK_OFF &&
		    rec.u.mark.time != MT_NONE64) {
			const char *t = rec.u.mark.text ? mt_reader_str(&r, rec.u.mark.text, &len)
							: NULL;

			if (t)
				off_add(t, len, rec.u.mark.time);
		}
		if (rec.type == MT_REC_MARK && mode == MODE_CALLS) {
			stream_mark(&r, &rec.u.mark);
			continue;
		}
		if (rec.type != MT_REC_SPAN)
			continue;
		name = mt_reader_str(&r, s->name, &len);
		if (!name) {
			name = "[unknown]";
			len = strlen(name);
		}
		add_call(s->pid, s->tid, s->start, s->end, s->depth, s->kind, name,
			 len, 0);
	}
	if (got < 0)
		die_mt(got, "%s: byte offset 0x%llx", io.in_name,
		       (unsigned long long)mt_reader_offset(&r));
	mt_reader_release(&r);
}

/* ---- an FXT file: the slices Perfetto would show ---- */

/*
 * As mt-slice does (mt-slice/fxt.c, replay.c), and as Perfetto does: the
 * events that make or end a slice on a thread's track are sorted by
 * (thread, time, file order), on disk, then replayed per thread through
 * Perfetto's slice tracker (common/nest.h), which gives each slice its end
 * and depth; each slice popped is a call. An event keeps only what the
 * replay and the report need: its name is an id in fx_names.
 */
struct fev {
	uint64_t ts, end, seq; /* ns; end: a complete event's */
	uint32_t th, name;     /* th: index in fx_threads */
	uint8_t type;          /* MT_FXT_EV_* */
	uint8_t kernel;        /* an "address" argument in the kernel */
};

struct fframe {
	uint32_t name;
	uint8_t type, kernel;
};

static struct mt_extsort fx_evs;
/* a thread of the FXT file, by index in fx_threads */
struct fthread {
	uint32_t pid, tid, index;
};

static struct mt_tidtable fx_threads; /* of struct fthread */
static struct mt_intern fx_names;
static uint64_t fx_ndropped; /* events the slice tracker drops */
static struct mt_nest fx_nest;
static uint32_t fx_th = UINT32_MAX; /* the thread being replayed */

static int by_thread_time(const void *a, const void *b)
{
	const struct fev *x = a, *y = b;

	MT_CMP_BY(x->th, y->th);
	MT_CMP_BY(x->ts, y->ts);
	return MT_CMP(x->seq, y->seq);
}

/* A kernel frame (mt-stacks' test): an "address" argument in the kernel's
 * half of the address space. */
static int kernel_address(const struct mt_fxt_event *ev)
{
	unsigned i;

	for (i = 0; i < ev->nargs; i++) {
		const struct mt_fxt_arg *a = &ev->args[i];

		if (a->type == MT_FXT_ARG_POINTER && a->name.len == 7 &&
		    !memcmp(a->name.p, "address", 7) &&
		    a->u >= 0xffff800000000000ull)
			return 1;
	}
	return 0;
}

/*
 * FXT has no kinds: the pseudo-spans are known by the names mt-stacks
 * gives them and mt-fxt writes, and kernel frames by their address.
 */
static unsigned fxt_kind(const char *name, size_t len, int kernel)
{
	if (len == 9 && !memcmp(name, "[syscall]", 9))
		return MT_SPAN_SYSCALL;
	if (len == 10 && !memcmp(name, "[untraced]", 10))
		return MT_SPAN_UNTRACED;
	if (name[len - (len > 0)] == ']' &&
	    ((len > 12 && !memcmp(name, "[lost data: ", 12)) ||
	     (len > 15 && !memcmp(name, "[decode error: ", 15))))
		return MT_SPAN_GAP;
	return kernel ? MT_SPAN_KERNEL : MT_SPAN_FUNCTION;
}

/* An event of the file: noted if it makes or ends a slice on a thread's
 * track, as Perfetto reads it (a bad one dropped, as it drops it). */
static void fxt_note(const struct mt_fxt_record *rec)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	uint64_t tps = rec->provider->ticks_per_second;
	int64_t ts, end = 0;
	struct fev e;
	struct fthread *t;
	int is_new;

	if (ev->type != MT_FXT_EV_INSTANT && ev->type != MT_FXT_EV_BEGIN &&
	    ev->type != MT_FXT_EV_END && ev->type != MT_FXT_EV_COMPLETE)
		return; /* counters, async, flows: not on thread tracks */
	if (mt_fxt_ticks_to_ns(ev->ts, tps, &ts))
		return;
	if (ev->type == MT_FXT_EV_INSTANT && ev->name.len == 13 &&
	    !memcmp(ev->name.p, "recording off", 13)) {
		unsigned k;

		for (k = 0; k < ev->nargs; k++)
			if (ev->args[k].type == MT_FXT_ARG_STRING && ev->args[k].name.len == 8 &&
			    !memcmp(ev->args[k].name.p, "function", 8) && ev->args[k].s.p)
				off_add(ev->args[k].s.p, ev->args[k].s.len, (uint64_t)ts);
	}
	/* Perfetto reads an overflowing end as -1 */
	if (ev->type == MT_FXT_EV_COMPLETE &&
	    (mt_fxt_ticks_to_ns(ev->end_ts, tps, &end) || end < ts))
		return;
	memset(&e, 0, sizeof(e));
	/* Perfetto keeps pid and tid as 32 bits */
	if (mt_tidtable_get(&fx_threads, (uint32_t)ev->thread.pid,
			    (uint32_t)ev->thread.tid, &t, &is_new) ||
	    mt_intern_get(&fx_names, ev->name.p ? ev->name.p : "",
			  ev->name.len, &e.name, NULL))
		die(MT_EXIT_SYSTEM, "out of memory");
	if (is_new) {
		t->pid = (uint32_t)ev->thread.pid;
		t->tid = (uint32_t)ev->thread.tid;
		t->index = (uint32_t)(mt_tidtable_count(&fx_threads) - 1);
	}
	e.th = t->index;
	e.ts = (uint64_t)ts;
	e.end = (uint64_t)end;
	e.seq = fx_evs.count;
	e.type = (uint8_t)ev->type;
	e.kernel = (uint8_t)kernel_address(ev);
	sort_check(mt_extsort_add(&fx_evs, &e));
}

/* A slice leaves the stack: a call, if it ended and is no instant. */
static void fx_pop(void *ctx, struct mt_nest *n)
{
	const struct mt_nest_frame *f = &n->f[n->n];
	const struct fframe *d = mt_nest_data(n, n->n);
	size_t len;
	const struct fthread *t;
	const char *name;

	if (d->type == MT_FXT_EV_INSTANT && mode != MODE_CALLS)
		return;
	if (f->end == MT_NEST_PENDING) {
		nunended++;
		return;
	}
	name = mt_intern_str(&fx_names, d->name, &len);
	t = mt_tidtable_at(&fx_threads, fx_th);
	add_call(t->pid, t->tid, f->start, f->end, (int32_t)n->n,
		 fxt_kind(name, len, d->kernel), name, len,
		 d->type == MT_FXT_EV_INSTANT ? CALL_INSTANT : 0);
}

/* SliceTracker::StartSlice (a begin, complete event or instant), or End. */
static void fx_replay(const struct fev *e)
{
	struct fframe *d;
	size_t i;
	uint64_t dur = e->type == MT_FXT_EV_BEGIN ? MT_NEST_PENDING :
		       e->type == MT_FXT_EV_COMPLETE ? e->end - e->ts : 0;

	if (e->type == MT_FXT_EV_END) {
		if (!mt_nest_find_begun(&fx_nest, e->ts, &i)) {
			fx_ndropped++; /* an end with no begin open */
			return;
		}
		/* the end's arguments go to the slice it closes */
		d = mt_nest_data(&fx_nest, i);
		d->kernel |= e->kernel;
		mt_nest_set_end(&fx_nest, i, e->ts);
		return;
	}
	if (!mt_nest_close(&fx_nest, e->ts, dur, NULL) ||
	    fx_nest.n >= MT_FXT_MAX_DEPTH) {
		fx_ndropped++; /* partly overlapping, or too deep */
		return;
	}
	if (mt_nest_push(&fx_nest, e->ts, dur == MT_NEST_PENDING ?
			 MT_NEST_PENDING : e->ts + dur))
		die(MT_EXIT_SYSTEM, "out of memory");
	d = mt_nest_data(&fx_nest, fx_nest.n - 1);
	d->name = e->name;
	d->type = e->type;
	d->kernel = e->kernel;
}

/* The reader's fatal error, at the record at offset off. */
static _Noreturn void fxt_failed(const struct mt_fxt_reader *r, int err)
{
	unsigned long long o = (unsigned long long)mt_fxt_reader_offset(r);

	if (err == MT_ECORRUPT)
		die(MT_EXIT_DATA, "%s: byte offset 0x%llx: record of size 0",
		    io.in_name, o);
	if (err == MT_ETRUNCATED)
		die(MT_EXIT_DATA, "%s: byte offset 0x%llx: truncated record",
		    io.in_name, o);
	die_mt(err, "%s: byte offset 0x%llx", io.in_name, o);
}

static void fxt_calls(mt_read_fn src, const void *pre, size_t pre_len)
{
	static const struct mt_nest_ops ops = { .pop = fx_pop };
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;
	const void *p;
	int got;

	mt_tidtable_init(&fx_threads, sizeof(struct fthread));
	mt_intern_init(&fx_names);
	sort_check(mt_extsort_init(&fx_evs, sizeof(struct fev), by_thread_time,
				   SORT_RUN, SORT_FANIN));
	if (mt_fxt_reader_init_fn(&r, src, NULL, pre, pre_len))
		die(MT_EXIT_SYSTEM, "out of memory");
	while ((got = mt_fxt_next(&r, &rec)) > 0)
		if (rec.type == MT_FXT_EVENT && !rec.bad && !rec.undefined &&
		    rec.provider)
			fxt_note(&rec);
	if (got < 0)
		fxt_failed(&r, got);
	mt_fxt_reader_release(&r);
	sort_check(mt_extsort_sort(&fx_evs));
	mt_nest_init(&fx_nest, sizeof(struct fframe), &ops, NULL);
	while ((got = mt_extsort_next(&fx_evs, &p)) > 0) {
		const struct fev *e = p;

		if (e->th != fx_th) {
			mt_nest_clear(&fx_nest);
			fx_th = e->th;
		}
		fx_replay(e);
	}
	sort_check(got);
	mt_nest_clear(&fx_nest);
	mt_nest_release(&fx_nest);
	if (io.verbose && fx_ndropped)
		warn("%s: %llu slice events Perfetto would drop (partly "
		     "overlapping, too deep, or ending nothing: fxt-check lists "
		     "them)", io.in_name, (unsigned long long)fx_ndropped);
	mt_extsort_release(&fx_evs);
	mt_intern_release(&fx_names);
	mt_tidtable_release(&fx_threads);
}

static void read_input(void)
{
	unsigned char magic[8];
	size_t got = 0;
	ssize_t k;
	enum mt_kind kind;

	in_sniff();
	kind = mt_kind_of(in_buf, in_len);
	if (kind != MT_KIND_GZIP && kind != MT_KIND_FXT) {
		/* an mt stream: the reader judges it */
		stream_calls(in_read, NULL, 0);
		return;
	}
	if (kind == MT_KIND_FXT) {
		fxt_calls(in_read, NULL, 0);
		return;
	}
	if (mt_gzin_init(&gz, in_read, NULL))
		die(MT_EXIT_SYSTEM, "out of memory");
	while (got < sizeof(magic) &&
	       (k = gz_read(NULL, magic + got, sizeof(magic) - got)) > 0)
		got += (size_t)k;
	kind = mt_kind_of(magic, got);
	if (kind == MT_KIND_STREAM)
		stream_calls(gz_read, magic, got);
	else if (kind == MT_KIND_FXT)
		fxt_calls(gz_read, magic, got);
	else
		die(MT_EXIT_DATA, "%s: gzip data holding neither an mt stream nor "
		    "an FXT file", io.in_name);
	mt_gzin_release(&gz);
}

/* ---- nesting: per thread, in start order ---- */

static int by_start(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	MT_CMP_BY(x->thread, y->thread);
	MT_CMP_BY(x->start, y->start);
	MT_CMP_BY(x->depth, y->depth);
	/* siblings starting together: the shorter first, so that the
	 * longer stays open for what nests in it */
	MT_CMP_BY(x->end, y->end);
	return MT_CMP(x->fn, y->fn);
}

/* c lies in p, p shallower; a span starting where a longer p ends is not
 * inside it (as mt-slice and Perfetto nest them). */
static int inside(const struct call *c, const struct call *p)
{
	return p->start <= c->start && c->end <= p->end && p->depth < c->depth &&
	       !(c->start == p->end && p->start < p->end);
}

/* The open calls of the thread being walked, a copy of each: memory grows
 * with the stack's depth. */
static struct open_call *stk;
static size_t nstk, stk_cap;

static void pop(void)
{
	struct open_call *o = &stk[--nstk];
	uint64_t dur = o->c.end - o->c.start;
	struct fn *f = &fns[o->c.fn];
	uint64_t self = dur > o->children ? dur - o->children : 0;

	f->self += self;
	f->onstack--;
	if (mode == MODE_FOLDED)
		folded_popped(stk, nstk, self);
}

static void walk(void)
{
	const void *p;
	int got;

	sort_check(mt_extsort_sort(&calls));
	while ((got = mt_extsort_next(&calls, &p)) > 0) {
		const struct call *c = p;
		struct fn *f = &fns[c->fn];
		uint64_t dur = c->end - c->start;

		while (nstk && (stk[nstk - 1].c.thread != c->thread ||
				!inside(c, &stk[nstk - 1].c)))
			pop();
		if (mode == MODE_CALLS)
			calls_seen(c, nstk);
		if (c->flags & CALL_INSTANT)
			continue; /* never on the stack */
		if (nstk)
			stk[nstk - 1].children += dur;
		if (!f->onstack++)
			f->total += dur;
		grow_or_die(&stk, &stk_cap, nstk, sizeof(*stk));
		stk[nstk].c = *c;
		stk[nstk++].children = 0;
	}
	sort_check(got);
	while (nstk)
		pop();
}

static void distributions(void)
{
	size_t i, n = mt_intern_count(&names);

	for (i = 1; i <= n; i++) {
		struct fn *f = &fns[i];

		f->median = sk_quantile(&f->sk, f->calls, 50, f->min, f->max);
		f->p99 = sk_quantile(&f->sk, f->calls, 99, f->min, f->max);
		free(f->sk.c);
	}
}

/* ---- output ---- */

static uint64_t key_of(const struct fn *f)
{
	return by == BY_SELF ? f->self : by == BY_CALLS ? f->calls : f->total;
}

static int by_key(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;
	uint64_t kx = key_of(x), ky = key_of(y);
	size_t lx, ly;
	const char *nx, *ny;
	int d;

	if (kx != ky)
		return MT_CMP(ky, kx); /* the larger first */
	nx = mt_intern_str(&names, x->id, &lx);
	ny = mt_intern_str(&names, y->id, &ly);
	d = memcmp(nx, ny, lx < ly ? lx : ly);
	return d ? d : MT_CMP(lx, ly);
}

void print_time(uint64_t ns)
{
	if (ns < 1000)
		printf(" %8llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		printf(" %8.3f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		printf(" %8.3f ms", (double)ns / 1e6);
	else
		printf(" %8.3f s ", (double)ns / 1e9);
}

/* A JSON string of the bytes: printable ASCII as it is (but \" and \\),
 * every other byte as \u00XX, so the output is ASCII whatever the name. */
void json_bytes(const char *s, size_t n)
{
	size_t i;

	putchar('"');
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20 || ch > 0x7e)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void print_report(const struct fn *v, size_t n)
{
	size_t i;
	char *q = NULL;
	size_t qcap = 0;

	if (json)
		printf("{\"by\":\"%s\",\"functions\":[",
		       by == BY_SELF ? "self" : by == BY_CALLS ? "calls" : "total");
	else
		printf("%11s %11s %10s %11s %11s %11s %11s  %s\n", "total", "self",
		       "calls", "min", "median", "p99", "max", "function");
	for (i = 0; i < n; i++) {
		const struct fn *f = &v[i];
		size_t len;
		const char *name = mt_intern_str(&names, f->id, &len);

		if (json) {
			printf("%s\n{\"name\":", i ? "," : "");
			json_bytes(name, len);
			printf(",\"calls\":%llu,\"total_ns\":%llu,\"self_ns\":%llu,"
			       "\"min_ns\":%llu,\"median_ns\":%llu,\"p99_ns\":%llu,"
			       "\"max_ns\":%llu}",
			       (unsigned long long)f->calls,
			       (unsigned long long)f->total,
			       (unsigned long long)f->self,
			       (unsigned long long)f->min,
			       (unsigned long long)f->median,
			       (unsigned long long)f->p99,
			       (unsigned long long)f->max);
			continue;
		}
		print_time(f->total);
		print_time(f->self);
		printf(" %10llu", (unsigned long long)f->calls);
		print_time(f->min);
		print_time(f->median);
		print_time(f->p99);
		print_time(f->max);
		if (MT_QUOTE_SIZE(len) > qcap) {
			qcap = MT_QUOTE_SIZE(len);
			free(q);
			q = xmalloc(qcap);
		}
		printf("  %s\n", mt_quote(q, qcap, name, len));
	}
	if (json) {
		printf("\n]");
		if (noffs) {
			printf(",\"turned_off\":[");
			for (i = 0; i < noffs; i++) {
				printf("%s{\"name\":", i ? "," : "");
				json_bytes(offs[i].name, offs[i].len);
				printf(",\"ts\":%llu}", (unsigned long long)(offs[i].time -
					(first_start != MT_NONE64 && first_start <= offs[i].time ?
					 first_start : offs[i].time)));
			}
			printf("]");
		}
		printf("}\n");
	} else if (noffs) {
		printf("\nturned off by mt-record --max-overhead (not recorded after that: "
		       "their counts are partial):\n");
		for (i = 0; i < noffs; i++) {
			uint64_t at = first_start != MT_NONE64 && first_start <= offs[i].time ?
					      offs[i].time - first_start : 0;

			if (MT_QUOTE_SIZE(offs[i].len) > qcap) {
				qcap = MT_QUOTE_SIZE(offs[i].len);
				free(q);
				q = xmalloc(qcap);
			}
			printf("  %s ", mt_quote(q, qcap, offs[i].name, offs[i].len));
			if (first_start == MT_NONE64 || first_start > offs[i].time) {
				printf("before the first call kept\n");
				continue;
			}
			printf("at");
			print_time(at);
			printf(" from the first call\n");
		}
	}
	free(q);
}

static void offs_release(void)
{
	size_t i;

	for (i = 0; i < noffs; i++)
		free(offs[i].name);
	free(offs);
	offs = NULL;
	noffs = offs_cap = 0;
}

static void report(void)
{
	size_t nfns = mt_intern_count(&names), i, n = 0;
	struct fn *v;

	if (mode == MODE_CALLS) {
		calls_init(&copts, first_start);
		walk();
		calls_print();
		free(fns);
		offs_release();
		return;
	}
	if (mode == MODE_FOLDED) {
		folded_init();
		walk();
		folded_print();
		free(fns);
		offs_release();
		return;
	}
	walk();
	distributions();
	v = xmallocarray(nfns + 1, sizeof(*v));
	for (i = 1; i <= nfns; i++) {
		fns[i].id = (uint32_t)i;
		v[n++] = fns[i];
	}
	qsort(v, n, sizeof(*v), by_key);
	print_report(v, n < limit ? n : limit);
	free(v);
	free(fns);
	offs_release();
}

static void say_counts(void)
{
	unsigned k;

	fprintf(stderr, "%s: %s: %llu spans, %llu calls counted of %zu functions "
		"on %zu threads", mt_progname(), io.in_name,
		(unsigned long long)nspans, (unsigned long long)calls.count,
		mt_intern_count(&names),
		threads.n);
	for (k = 1; k < MT_SPAN_NKINDS; k++)
		if (nother[k])
			fprintf(stderr, ", %llu %s spans left out",
				(unsigned long long)nother[k], mt_span_kind_names[k]);
	if (nother[MT_SPAN_NKINDS])
		fprintf(stderr, ", %llu spans of unknown kinds left out",
			(unsigned long long)nother[MT_SPAN_NKINDS]);
	if (nfiltered)
		fprintf(stderr, ", %llu on other threads",
			(unsigned long long)nfiltered);
	if (nunended)
		fprintf(stderr, ", %llu slices that did not end left out",
			(unsigned long long)nunended);
	fputc('\n', stderr);
}

/* The options of --calls and --folded, checked once all are read. */
static void check_views(int by_given, int window)
{
	if (mode != MODE_CALLS && window)
		die(MT_EXIT_USAGE, "--from, --to, --duration, --abs, --min-duration and "
		    "--max-depth go with --calls");
	if (mode != MODE_REPORT && (by_given || limit != SIZE_MAX))
		die(MT_EXIT_USAGE, "--by and -n go with the report, not --calls or --folded");
	if (mode == MODE_FOLDED && json)
		die(MT_EXIT_USAGE, "--folded has no --json: its lines are the format");
	if (folded_per_thread && mode != MODE_FOLDED)
		die(MT_EXIT_USAGE, "--per-thread goes with --folded");
	if (copts.have_to && copts.dur != MT_NONE64)
		die(MT_EXIT_USAGE, "--to and --duration: give one of them");
	if (copts.have_to && copts.have_from && copts.to < copts.from)
		die(MT_EXIT_USAGE, "--to is before --from");
	copts.json = json;
}

/* Color: on a terminal, not with -o, NO_COLOR or TERM=dumb. */
static int want_color(void)
{
	const char *term = getenv("TERM");

	return !io.out_name && isatty(STDOUT_FILENO) && !getenv("NO_COLOR") &&
	       term && strcmp(term, "dumb");
}

int main(int argc, char **argv)
{
	enum {
		OPT_BY = 256, OPT_JSON, OPT_KIND, OPT_PID, OPT_TID, OPT_CALLS, OPT_FOLDED,
		OPT_PER_THREAD, OPT_FROM, OPT_TO, OPT_DURATION, OPT_ABS, OPT_MIN, OPT_MAXDEPTH
	};
	static const struct option longopts[] = {
		{ "calls", no_argument, NULL, OPT_CALLS },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "abs", no_argument, NULL, OPT_ABS },
		{ "min-duration", required_argument, NULL, OPT_MIN },
		{ "max-depth", required_argument, NULL, OPT_MAXDEPTH },
		{ "by", required_argument, NULL, OPT_BY },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "kind", required_argument, NULL, OPT_KIND },
		{ "limit", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "tid", required_argument, NULL, OPT_TID },
		MT_FILTER_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c, by_given = 0, window = 0, kind_given = 0;

	mt_set_progname(argv[0]);
	mt_set_manual();
	mt_finish_on_interrupt();
	while ((c = getopt_long(argc, argv, "n:o:v", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_CALLS:
		case OPT_FOLDED:
			if (mode != MODE_REPORT)
				die(MT_EXIT_USAGE, "--calls and --folded: give one of them");
			mode = c == OPT_CALLS ? MODE_CALLS : MODE_FOLDED;
			break;
		case OPT_PER_THREAD:
			folded_per_thread = 1;
			break;
		case OPT_FROM:
			copts.from = mt_duration_arg(optarg, "--from");
			copts.have_from = window = 1;
			break;
		case OPT_TO:
			copts.to = mt_duration_arg(optarg, "--to");
			copts.have_to = window = 1;
			break;
		case OPT_DURATION:
			copts.dur = mt_duration_arg(optarg, "--duration");
			window = 1;
			break;
		case OPT_ABS:
			copts.absolute = window = 1;
			break;
		case OPT_MIN:
			copts.min_dur = mt_duration_arg(optarg, "--min-duration");
			copts.have_min = window = 1;
			break;
		case OPT_MAXDEPTH: {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (end == optarg || *end || v < 0 || v > 1000000)
				die(MT_EXIT_USAGE, "--max-depth %s: expected a depth (0 or more)",
				    optarg);
			copts.max_depth = (int32_t)v;
			copts.have_max_depth = window = 1;
			break;
		}
		case OPT_BY:
			by_given = 1;
			if (!strcmp(optarg, "total"))
				by = BY_TOTAL;
			else if (!strcmp(optarg, "self"))
				by = BY_SELF;
			else if (!strcmp(optarg, "calls"))
				by = BY_CALLS;
			else
				die(MT_EXIT_USAGE, "--by %s: expected total, self or "
				    "calls", optarg);
			break;
		case OPT_JSON:
			json = 1;
			break;
		case 'n': {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (end == optarg || *end || errno || optarg[0] == '-')
				die(MT_EXIT_USAGE, "-n %s: expected a number of rows",
				    optarg);
			limit = v > SIZE_MAX ? SIZE_MAX : (size_t)v;
			break;
		}
		case OPT_KIND:
			kinds_parse(optarg);
			kind_given = 1;
			break;
		case OPT_PID:
			mt_idlist_parse_or_die(&pids, optarg, "--pid");
			break;
		case OPT_TID:
			mt_idlist_parse_or_die(&tids, optarg, "--tid");
			break;
		default:
			mt_filter_option(&io, c, USAGE);
		}
	}
	check_views(by_given, window);
	if (mode != MODE_REPORT && !kind_given)
		kinds = ~0u; /* every slice: [syscall], [untraced] ... too */
	mt_filter_open_or_die(&io, argc - optind, argv + optind, USAGE);
	copts.color = want_color();
	mt_tidmap_init(&threads);
	mt_intern_init(&names);
	sort_check(mt_extsort_init(&calls, sizeof(struct call), by_start,
				   SORT_RUN, SORT_FANIN));
	read_input();
	if (io.verbose)
		say_counts();
	if (!calls.count) {
		if (nspans)
			die(MT_EXIT_DATA, "%s: none of its %llu spans is counted "
			    "(see --kind, --pid, --tid)", io.in_name,
			    (unsigned long long)nspans);
		die(MT_EXIT_DATA, "%s: no spans", io.in_name);
	}
	report();
	mt_extsort_release(&calls);
	free(stk);
	mt_idlist_release(&pids);
	mt_idlist_release(&tids);
	mt_intern_release(&names);
	mt_tidmap_release(&threads);
	free(thread_of);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
