/*
 * mt-slice on an FXT file (docs/fxt.md), plain or gzip-compressed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "die.h"
#include "err.h"
#include "extsort.h"
#include "fxtread.h"
#include "fxtwrite.h"
#include "gzin.h"
#include "slice.h"
#include "stream.h"
#include "wire.h"
#include "cmp.h"
#include "banned.h"

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

/*
 * Writers put FXT events in any order (magic-trace writes the begins of the
 * frames open at the start of a thread after all its other events), and
 * Perfetto reads them sorted by (timestamp, file order): begins and ends
 * are paired, and slices nested, only after that sort
 * (importers/fuchsia/fuchsia_trace_tokenizer.cc pushes every event to the
 * TraceSorter; sorter/trace_sorter.h orders by ts, then by position).
 * So unless the options keep everything, a first pass copies the input to
 * a temporary file and notes each event that makes or ends a slice on a
 * thread track (begin, end, complete, instant) for the replay (replay.c),
 * which decides each of them; the second pass, over the copy, applies the
 * decisions as it goes.
 */
enum { FX_PLAIN, FX_COLLECT, FX_APPLY };
static int fx_pass;
static unsigned long long nf_in, nf_kept, nf_clipped;
static FILE *fx_copy;

/* found by the first pass: the earliest event, the earliest begin or
 * complete event (the start of the trace), the latest time seen */
static int64_t fx_min_ts = INT64_MAX, fx_min_start = INT64_MAX, fx_max_ts = -1;

static struct mt_fxt_reader fxr;

/* ---- the byte source: the file, or zlib's output (common/gzin.h) ---- */

static int src_fd = -1;
static unsigned char src_pre[8]; /* bytes read while sniffing */
static size_t src_pre_len, src_pre_pos;
static struct mt_gzin gz;

static unsigned char raw_buf[1 << 18];
static size_t raw_pos, raw_len;

/* The file's bytes (the sniffed ones first), read many records at a
 * time; ctx is the slice. */
static ssize_t raw_read(void *ctx, void *p, size_t n)
{
	const struct slice *sl = ctx;
	size_t got = 0;

	if (src_pre_pos < src_pre_len) {
		got = src_pre_len - src_pre_pos < n ? src_pre_len - src_pre_pos : n;
		memcpy(p, src_pre + src_pre_pos, got);
		src_pre_pos += got;
		return (ssize_t)got;
	}
	if (raw_pos == raw_len) {
		ssize_t k;

		do
			k = read(src_fd, raw_buf, sizeof(raw_buf));
		while (k < 0 && errno == EINTR);
		if (k < 0)
			die_errno(MT_EXIT_SYSTEM, "%s", sl->in_name);
		raw_pos = 0;
		raw_len = (size_t)k;
		if (!k)
			return 0;
	}
	got = raw_len - raw_pos < n ? raw_len - raw_pos : n;
	memcpy(p, raw_buf + raw_pos, got);
	raw_pos += got;
	return (ssize_t)got;
}

/* The decompressed bytes; ctx is the slice. */
static ssize_t gz_read(void *ctx, void *p, size_t n)
{
	const char *in_name = ((const struct slice *)ctx)->in_name;
	ssize_t k = mt_gzin_read(&gz, p, n);

	if (k == MT_ETRUNCATED)
		die(MT_EXIT_DATA, "%s: gzip data ends early", in_name);
	if (k < 0 && gz.why)
		die(MT_EXIT_DATA, "%s: bad gzip data: %s", in_name, gz.why);
	if (k < 0)
		die(MT_EXIT_DATA, "%s: bad gzip data", in_name);
	return k;
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

/* ---- rewriting event records (common/fxtwrite.h) ---- */

static struct mt_buf tmp_out; /* the record rewritten last */
static struct mt_fxtw fw;     /* appends to tmp_out */

static void fxt_check(const struct slice *sl, int err)
{
	if (err)
		die_mt(err, "%s: writing FXT", sl->in_name);
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
static void again_as_is(const struct slice *sl,
			const struct mt_fxt_record *rec, uint64_t ts,
			uint64_t end, const struct flags *f)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	size_t len = body_len(ev);
	unsigned n = flags_fit(len / 8, (unsigned)field(rec->header, 20, 23), f);

	mt_buf_reset(&tmp_out);
	fxt_check(sl, mt_fxtw_event_again(&fw, ev->type, rec->raw, len, ts, f->a,
					  n, end));
}

/*
 * The same with thread, category, name and arguments inline, for an event
 * written later than its place in the file, where the table indexes may
 * mean something else. As it is when the inline form would not fit in a
 * record.
 */
static void again_inline(const struct slice *sl,
			 const struct mt_fxt_record *rec, uint64_t ts,
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
		again_as_is(sl, rec, ts, end, f);
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
		again_as_is(sl, rec, ts, end, f);
		return;
	}
	n = flags_fit(nw, ev->nargs, f);
	memcpy(a + ev->nargs, f->a, n * sizeof(*a));
	e.nargs = ev->nargs + n;
	mt_buf_reset(&tmp_out);
	fxt_check(sl, mt_fxtw_event(&fw, ev->type, &e, end));
}

/* ---- times: the window is in ns, records in ticks ---- */

static uint64_t to_ticks(uint64_t ns, uint64_t tps)
{
	if (tps == MT_FXT_TICKS_NS)
		return ns;
	return (uint64_t)((unsigned __int128)ns * tps / MT_FXT_TICKS_NS);
}
static int fxt_name_matches(const struct slice *sl,
			    const struct mt_fxt_event *ev)
{
	const char *p = ev->name.p;
	size_t len = ev->name.len;

	if (!sl->match_rx.re)
		return 0;
	if (!p) {
		p = "";
		len = 0;
	}
	return mt_regex_match_len(&sl->match_rx, p, len);
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

/*
 * A slice that was open before it was begun here, so no call of its
 * function: flagged "inferred start" or "clipped start" (mt-fxt,
 * mt-slice), or with magic-trace's string argument inferred_start_time
 * "true".
 */
static int str_is(const struct mt_fxt_str *s, const char *lit)
{
	size_t n = strlen(lit);

	return s->p && s->len == n && !memcmp(s->p, lit, n);
}

static int not_a_call(const struct mt_fxt_event *ev)
{
	unsigned i;

	for (i = 0; i < ev->nargs; i++) {
		const struct mt_fxt_arg *a = &ev->args[i];

		if (a->type == MT_FXT_ARG_BOOL && a->u &&
		    (str_is(&a->name, "inferred start") ||
		     str_is(&a->name, "clipped start")))
			return 1;
		if (a->type == MT_FXT_ARG_STRING &&
		    str_is(&a->name, "inferred_start_time") &&
		    str_is(&a->s, "true"))
			return 1;
	}
	return 0;
}

static void fx_collect(const struct slice *sl, const struct mt_fxt_event *ev,
		       int64_t ts, int64_t end)
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
	if (sl->have_between && (ev->type == MT_FXT_EV_BEGIN ||
	    (ev->type == MT_FXT_EV_COMPLETE && end >= ts)) && !not_a_call(ev))
		between_hit(sl, ev->name.p, ev->name.len, (uint64_t)ts);
	if (!thread_kept(sl, (uint32_t)ev->thread.pid,
			 (uint32_t)ev->thread.tid) ||
	    !slice_event(ev, ts, end))
		return;
	replay_note(replay_thread(ev->thread.pid, ev->thread.tid), ev->type,
		   (uint64_t)ts, (uint64_t)end,
		   ev->type != MT_FXT_EV_END && ev->type != MT_FXT_EV_INSTANT &&
		   fxt_name_matches(sl, ev));
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
	uint64_t from; /* the window's or region's start they stand at */
	uint32_t pid, tid;
	uint64_t key, seq;
	uint64_t off, len; /* the record in fheld_f */
};

static struct mt_extsort fheld;
static FILE *fheld_f;
static uint64_t nfheld, fheld_end;

static int by_input_order(const void *a, const void *b)
{
	const struct fheld *x = a, *y = b;

	MT_CMP_BY(x->from, y->from);
	MT_CMP_BY(x->pid, y->pid);
	MT_CMP_BY(x->tid, y->tid);
	MT_CMP_BY(x->key, y->key);
	return MT_CMP(x->seq, y->seq);
}

static void fheld_check(int err)
{
	if (err)
		die_mt(err, "sorting events in a temporary file");
}

/*
 * Hold tmp_out, which Perfetto met at (key, seq) in the input, to be
 * written at from's place among the held ones. The records go to a
 * temporary file and their keys to a sort on disk: memory stays bounded,
 * whatever the number of regions of --between.
 */
static void fhold(const struct mt_fxt_event *ev, uint64_t from, uint64_t key,
		  uint64_t seq)
{
	struct fheld h;

	if (!nfheld) {
		fheld_check(mt_extsort_init(&fheld, sizeof(h), by_input_order,
					    1u << 12, 32));
		fheld_f = tmp_open();
	}
	memset(&h, 0, sizeof(h));
	h.from = from;
	h.pid = (uint32_t)ev->thread.pid;
	h.tid = (uint32_t)ev->thread.tid;
	h.key = key;
	h.seq = seq;
	h.off = fheld_end;
	h.len = tmp_out.len;
	tmp_io(1, fheld_f, tmp_out.p, tmp_out.len, fheld_end);
	fheld_end += tmp_out.len;
	nfheld++;
	fheld_check(mt_extsort_add(&fheld, &h));
}

/* Hold an event as it is, its strings and thread inline. */
static void fhold_as_is(const struct slice *sl, const struct mt_fxt_record *rec,
			uint64_t from, uint64_t key, uint64_t seq)
{
	static const struct flags none;

	again_inline(sl, rec, rec->u.event.ts, rec->u.event.end_ts, &none);
	fhold(&rec->u.event, from, key, seq);
}

/* begins never ended, kept: an end at the window's end on their thread */
struct fclose {
	uint64_t pid, tid, tps;
};

static struct fclose *fcloses;
static size_t nfcloses, fclosecap;

static void close_later(const struct mt_fxt_record *rec)
{
	grow_or_die(&fcloses, &fclosecap, nfcloses, sizeof(*fcloses));
	fcloses[nfcloses].pid = rec->u.event.thread.pid;
	fcloses[nfcloses].tid = rec->u.event.thread.tid;
	fcloses[nfcloses++].tps = rec->provider->ticks_per_second;
}

/* An end flagged "clipped end" on thread (pid, tid) at ns, now. */
static void close_at(const struct slice *sl, uint64_t pid, uint64_t tid,
		     uint64_t tps, uint64_t ns)
{
	struct flags f = { .n = 0 };
	struct mt_fxtw_event e = {
		.thread = { 0, pid, tid },
		.ts = to_ticks(ns, tps),
		.args = f.a,
	};

	add_flag(&f, "clipped end");
	e.nargs = f.n;
	mt_buf_reset(&tmp_out);
	fxt_check(sl, mt_fxtw_end(&fw, &e));
	emit_out();
	nf_clipped++;
}

static void fxt_complete(const struct slice *sl,
			 const struct mt_fxt_record *rec, uint64_t s, uint64_t e,
			 uint64_t seq)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	uint64_t tps = rec->provider->ticks_per_second;
	uint64_t cs = s, ce = e;
	struct flags f = { .n = 0 };

	if (s < sl->win_from) {
		cs = sl->win_from;
		add_flag(&f, "clipped start");
	}
	if (sl->win_to != MT_NONE64 && e > sl->win_to) {
		ce = sl->win_to;
		add_flag(&f, "clipped end");
	}
	if (f.n)
		nf_clipped++;
	if (cs == sl->win_from && sl->have_from) {
		again_inline(sl, rec, cs == s ? ev->ts : to_ticks(cs, tps),
			     ce == e ? ev->end_ts : to_ticks(ce, tps), &f);
		fhold(ev, sl->win_from, s, seq);
		return;
	}
	if (!f.n) {
		out_bytes(rec->raw, rec->size);
		nf_kept++;
		return;
	}
	again_as_is(sl, rec, cs == s ? ev->ts : to_ticks(cs, tps),
		    ce == e ? ev->end_ts : to_ticks(ce, tps), &f);
	emit_out();
}

static void fxt_begin(const struct slice *sl, const struct mt_fxt_record *rec,
		      uint64_t ts, uint64_t seq)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	struct flags f = { .n = 0 };

	if (ts < sl->win_from) {
		add_flag(&f, "clipped start");
		again_inline(sl, rec,
			     to_ticks(sl->win_from, rec->provider->ticks_per_second),
			     0, &f);
		fhold(ev, sl->win_from, ts, seq);
		nf_clipped++;
	} else if (sl->have_from && ts == sl->win_from) {
		fhold_as_is(sl, rec, sl->win_from, ts, seq);
	} else {
		out_bytes(rec->raw, rec->size);
		nf_kept++;
	}
}

static void fxt_end(const struct slice *sl, const struct mt_fxt_record *rec,
		    uint64_t ts, uint64_t seq)
{
	struct flags f = { .n = 0 };

	if (sl->win_to != MT_NONE64 && ts > sl->win_to) {
		add_flag(&f, "clipped end");
		again_as_is(sl, rec,
			    to_ticks(sl->win_to, rec->provider->ticks_per_second),
			    0, &f);
		emit_out();
		nf_clipped++;
	} else if (sl->have_from && ts == sl->win_from) {
		fhold_as_is(sl, rec, sl->win_from, ts, seq);
	} else {
		out_bytes(rec->raw, rec->size);
		nf_kept++;
	}
}

/* ---- --between: slices cut to the regions ---- */

/*
 * A complete event kept: its piece in each region it meets, clipped and
 * flagged; a piece at a region's start is held (as at a window's start).
 */
static void between_complete(const struct slice *sl,
			     const struct mt_fxt_record *rec, uint64_t s,
			     uint64_t e, uint64_t seq)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	uint64_t tps = rec->provider->ticks_per_second;
	uint64_t i = between_first(s), from, to;

	while (between_piece(s, e, &i, &from, &to)) {
		uint64_t cs = s, ce = e;
		struct flags f = { .n = 0 };

		if (s < from) {
			cs = from;
			add_flag(&f, "clipped start");
		}
		if (e > to) {
			ce = to;
			add_flag(&f, "clipped end");
		}
		if (f.n)
			nf_clipped++;
		if (cs == from) {
			again_inline(sl, rec, cs == s ? ev->ts : to_ticks(cs, tps),
				     ce == e ? ev->end_ts : to_ticks(ce, tps), &f);
			fhold(ev, from, s, seq);
		} else if (!f.n) {
			out_bytes(rec->raw, rec->size);
			nf_kept++;
		} else {
			again_as_is(sl, rec, cs == s ? ev->ts : to_ticks(cs, tps),
				    ce == e ? ev->end_ts : to_ticks(ce, tps), &f);
			emit_out();
		}
	}
}

/*
 * A begin kept, whose slice ends at e (MT_NONE64: never): a begin in each
 * region the slice meets (moved to the region's start and flagged, held,
 * when it began before), and an end flagged at the end of each region it
 * outlives, written now; the end of its last piece, if the slice's own, is
 * its end event's (replay.c keeps it then).
 */
static void between_begin(const struct slice *sl,
			  const struct mt_fxt_record *rec, uint64_t s,
			  uint64_t e, uint64_t seq)
{
	const struct mt_fxt_event *ev = &rec->u.event;
	uint64_t tps = rec->provider->ticks_per_second;
	uint64_t i = between_first(s), from, to;

	while (between_piece(s, e, &i, &from, &to)) {
		struct flags f = { .n = 0 };

		if (s < from) {
			add_flag(&f, "clipped start");
			again_inline(sl, rec, to_ticks(from, tps), 0, &f);
			fhold(ev, from, s, seq);
			nf_clipped++;
		} else if (s == from) {
			fhold_as_is(sl, rec, from, s, seq);
		} else {
			out_bytes(rec->raw, rec->size);
			nf_kept++;
		}
		if (e == MT_NONE64 || e > to)
			close_at(sl, ev->thread.pid, ev->thread.tid, tps, to);
	}
}

/* An end or an instant kept: held if it stands at a region's start. */
static void between_at(const struct slice *sl, const struct mt_fxt_record *rec,
		       uint64_t ts, uint64_t seq)
{
	if (between_is_from(ts)) {
		fhold_as_is(sl, rec, ts, ts, seq);
		return;
	}
	out_bytes(rec->raw, rec->size);
	nf_kept++;
}

static void fxt_event(const struct slice *sl,
		      const struct mt_fxt_record *rec)
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
		fx_collect(sl, ev, ts, end);
		return;
	}
	if (!thread_kept(sl, (uint32_t)ev->thread.pid,
			 (uint32_t)ev->thread.tid))
		return;
	if (fx_pass == FX_PLAIN || !slice_event(ev, ts, end)) {
		/* counters, async and flow events: by their time */
		if (fx_pass == FX_PLAIN || time_kept(sl, (uint64_t)ts)) {
			out_bytes(rec->raw, rec->size);
			nf_kept++;
		}
		return;
	}
	if (sl->have_between) {
		uint64_t e;

		if (replay_next_end(&seq, &e) == D_DROP)
			return;
		if (ev->type == MT_FXT_EV_COMPLETE)
			between_complete(sl, rec, (uint64_t)ts, (uint64_t)end, seq);
		else if (ev->type == MT_FXT_EV_BEGIN)
			between_begin(sl, rec, (uint64_t)ts, e, seq);
		else
			between_at(sl, rec, (uint64_t)ts, seq);
		return;
	}
	d = replay_next(&seq);
	if (d == D_DROP)
		return;
	switch (ev->type) {
	case MT_FXT_EV_COMPLETE:
		fxt_complete(sl, rec, (uint64_t)ts, (uint64_t)end, seq);
		return;
	case MT_FXT_EV_BEGIN:
		fxt_begin(sl, rec, (uint64_t)ts, seq);
		if (d == D_CLOSE)
			close_later(rec);
		return;
	case MT_FXT_EV_END:
		fxt_end(sl, rec, (uint64_t)ts, seq);
		return;
	default:
		if (sl->have_from && (uint64_t)ts == sl->win_from) {
			fhold_as_is(sl, rec, sl->win_from, (uint64_t)ts, seq);
			return;
		}
		out_bytes(rec->raw, rec->size);
		nf_kept++;
		return;
	}
}

static void fxt_finish(const struct slice *sl)
{
	static unsigned char rbuf[MT_FXT_MAX_WORDS * 8];
	const void *p;
	size_t i;
	int got;

	if (nfheld) {
		fheld_check(mt_extsort_sort(&fheld));
		while ((got = mt_extsort_next(&fheld, &p)) > 0) {
			const struct fheld *h = p;

			tmp_io(0, fheld_f, rbuf, (size_t)h->len, h->off);
			out_bytes(rbuf, (size_t)h->len);
		}
		fheld_check(got);
		mt_extsort_release(&fheld);
		fclose(fheld_f);
	}
	nf_kept += nfheld;
	for (i = 0; i < nfcloses; i++)
		close_at(sl, fcloses[i].pid, fcloses[i].tid, fcloses[i].tps,
			 sl->win_to);
}

/* The reader's fatal error, at the record at offset off. */
static _Noreturn void read_failed(const struct slice *sl, int err,
				  uint64_t off)
{
	unsigned long long o = (unsigned long long)off;
	size_t have = fxr.err_have;

	if (err == MT_ETRUNCATED && have < 8)
		die(MT_EXIT_DATA, "%s: byte offset 0x%llx: truncated record "
		    "header (%zu of 8 bytes)", sl->in_name, o, have);
	if (err == MT_ECORRUPT)
		die(MT_EXIT_DATA, "%s: byte offset 0x%llx: record of size 0 "
		    "(header 0x%016llx)", sl->in_name, o,
		    (unsigned long long)fxr.err_header);
	if (err == MT_ETRUNCATED)
		die(MT_EXIT_DATA, "%s: byte offset 0x%llx: truncated record "
		    "(%zu of %zu bytes)", sl->in_name, o, have,
		    (size_t)field(fxr.err_header, 4, 15) * 8);
	die_mt(err, "%s: byte offset 0x%llx", sl->in_name, o);
}

/* One pass over the input (the sniffed bytes at pre first), record by
 * record: memory does not grow with the file. */
static void fxt_pass(struct slice *sl, mt_read_fn src, const void *pre,
		     size_t pre_len)
{
	struct mt_fxt_record rec;
	int got;

	if (mt_fxt_reader_init_fn(&fxr, src, sl, pre, pre_len))
		die(MT_EXIT_SYSTEM, "out of memory");
	while ((got = mt_fxt_next(&fxr, &rec)) > 0) {
		if (fx_pass == FX_COLLECT) {
			if (fwrite(rec.raw, rec.size, 1, fx_copy) != 1)
				die_errno(MT_EXIT_SYSTEM, "the temporary file");
			if (rec.type == MT_FXT_EVENT && !rec.bad &&
			    !rec.undefined && rec.provider)
				fxt_event(sl, &rec);
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
		fxt_event(sl, &rec);
	}
	if (got < 0)
		read_failed(sl, got, mt_fxt_reader_offset(&fxr));
	mt_fxt_reader_release(&fxr);
}

/* Read the temporary copy from its start on the next pass. */
static void fx_rewind(void)
{
	if (fflush(fx_copy) || lseek(fileno(fx_copy), 0, SEEK_SET))
		die_errno(MT_EXIT_SYSTEM, "the temporary file");
	src_fd = fileno(fx_copy);
	src_pre_len = src_pre_pos = 0;
	raw_pos = raw_len = 0;
}


/* Slice what src reads (the sniffed bytes at pre first). */
static void fxt_run(struct slice *sl, mt_read_fn src, const void *pre,
		    size_t pre_len)
{
	/*
	 * The input is read once; when the options may leave something out,
	 * into a temporary copy, with the first pass that finds the start of
	 * the trace and decides the slices, then read from there.
	 */
	int decide = sl->have_from || sl->have_to || sl->opt_dur != MT_NONE64 ||
		     sl->have_min || sl->have_max_depth || sl->match_rx.re ||
		     sl->have_between;
	struct replay_counts rc;

	mt_fxtw_init_buf(&fw, &tmp_out);
	if (decide) {
		fx_pass = FX_COLLECT;
		fx_copy = tmp_open();
		fxt_pass(sl, src, pre, pre_len);
		fx_rewind();
		/* the trace starts with its first slice; with none, its
		 * first event */
		if (fx_min_start != INT64_MAX)
			see_time(sl, (uint64_t)fx_min_start);
		else if (fx_min_ts != INT64_MAX)
			see_time(sl, (uint64_t)fx_min_ts);
		if (sl->have_between)
			between_regions(sl);
		replay_decide(sl, 0, fx_max_ts);
	}
	fx_pass = decide ? FX_APPLY : FX_PLAIN;
	if (decide)
		fxt_pass(sl, raw_read, NULL, 0);
	else
		fxt_pass(sl, src, pre, pre_len);
	fxt_finish(sl);
	out_flush();
	mt_fxtw_release(&fw);
	mt_buf_release(&tmp_out);
	rc = replay_counts();
	if (sl->verbose || rc.nshort)
		fprintf(stderr, "%s: %s: %llu records read, %llu written, %llu spans "
			"clipped, %llu shorter than --min-duration dropped\n",
			mt_progname(), sl->in_name, nf_in, nf_kept, nf_clipped,
			rc.nshort);
	if (sl->verbose && sl->have_between)
		fprintf(stderr, "%s: %s: %llu regions between %s and %s\n",
			mt_progname(), sl->in_name,
			(unsigned long long)between_count(), sl->start_pat,
			sl->stop_pat);
	if (sl->verbose && decide)
		fprintf(stderr, "%s: %s: %llu slice events nested, %llu stack "
			"frames visited\n", mt_progname(), sl->in_name,
			(unsigned long long)rc.nevents, rc.nsteps);
	if (fx_copy)
		fclose(fx_copy);
}

void fxt_slice(struct slice *sl, int fd, const unsigned char *pre,
	       size_t len, int gzin, int gzip)
{
	unsigned char magic[8];
	size_t got = 0;
	ssize_t k;

	src_fd = fd;
	memcpy(src_pre, pre, len);
	src_pre_len = len;
	if (!gzin) {
		if (gzip)
			output_gzip();
		fxt_run(sl, raw_read, NULL, 0);
		return;
	}
	if (mt_gzin_init(&gz, raw_read, sl))
		die(MT_EXIT_SYSTEM, "out of memory");
	while (got < sizeof(magic) &&
	       (k = gz_read(sl, magic + got, sizeof(magic) - got)) > 0)
		got += (size_t)k;
	if (got < 8 || mt_get64(magic) != MT_FXT_MAGIC)
		die(MT_EXIT_DATA, "%s: gzip data holding no FXT file (an mt "
		    "stream must be given as it is)", sl->in_name);
	if (gzip)
		output_gzip();
	fxt_run(sl, gz_read, magic, sizeof(magic));
	mt_gzin_release(&gz);
}
