/*
 * mt-fxt: span streams in, Fuchsia trace format (or Chrome JSON) out, as
 * Perfetto imports it. See docs/mt-fxt.1; the layout and Perfetto's rules
 * are in docs/fxt.md, the records are written by common/fxtwrite.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "die.h"
#include "err.h"
#include "fxtwrite.h"
#include "stream.h"
#include "tidmap.h"
#include "wire.h"
#include "writer.h"
#include "banned.h"

#define USAGE "usage: mt-fxt [-v] [--json] [--dso] [--gzip] [--allow-empty] [-o output] [file]\n"

static const char *in_name; /* for messages (mt_filter_open_or_die) */
static const char *out_name = "<stdout>";
static struct mt_reader in;
static int json, with_dso;

/* FXT records go through the same buffer as JSON */
static int fxt_write(void *ctx, const void *p, size_t n)
{
	out_mem(p, n);
	return 0;
}

static struct mt_fxtw fw;

static void fxt_check(int err)
{
	if (err < 0)
		die_mt(err, "%s: writing FXT", out_name);
}

/* ---- the string table: 32767 indexes, re-registered when full ---- */

/*
 * Indexes 1..NPINNED hold the fixed names (arg names, instant names); the
 * rest hold input strings (keyed by their input id), evicted by the clock
 * when the table is full and registered again the next time they are used
 * (fxtwrite.h).
 */

enum {
	S_PROCESS = 1, S_ADDRESS, S_INFERRED, S_OPEN, S_CLIPSTART, S_CLIPEND,
	S_DSO, S_MESSAGE, S_CODE, S_IP, S_UNKNOWN, S_DECODE, S_LOST, S_TRIGGER,
	S_FUNCTION, S_SNAPSHOT, S_WALLCLOCK, S_UNIX_NS, S_CBR, S_MHZ, S_PTWRITE,
	S_PAYLOAD, S_POWER, S_EVTRACE, S_MARK, S_TEXT, S_VALUE, S_PERF_NS,
	S_CBR_THREAD, NPINNED = S_CBR_THREAD
};

static const char *const pinned[NPINNED + 1] = {
	[S_PROCESS] = "process", [S_ADDRESS] = "address",
	[S_INFERRED] = "inferred start", [S_OPEN] = "open end",
	[S_CLIPSTART] = "clipped start", [S_CLIPEND] = "clipped end",
	[S_DSO] = "dso", [S_MESSAGE] = "message", [S_CODE] = "code",
	[S_IP] = "ip", [S_UNKNOWN] = "[unknown]", [S_DECODE] = "decode error",
	[S_LOST] = "lost data", [S_TRIGGER] = "trigger",
	[S_FUNCTION] = "function", [S_SNAPSHOT] = "snapshot",
	[S_WALLCLOCK] = "wall clock", [S_UNIX_NS] = "unix time ns",
	[S_CBR] = "cpu frequency of cpu", [S_MHZ] = "MHz", [S_PTWRITE] = "ptwrite",
	[S_PAYLOAD] = "payload", [S_POWER] = "power", [S_EVTRACE] = "event trace",
	[S_MARK] = "mark", [S_TEXT] = "text", [S_VALUE] = "value",
	[S_PERF_NS] = "perf time ns",
	[S_CBR_THREAD] = "cpu frequency of thread",
};

/* The string index of input string id (0 for none), registering it. */
static uint32_t str_ref(uint32_t id)
{
	uint32_t slot;
	const char *s;
	size_t len;
	char *tmp;
	int got;

	if (!id)
		return 0;
	if ((slot = mt_fxtw_str_find(&fw, id)))
		return slot;
	s = text_need(id, &len, &tmp);
	if (!len) {
		free(tmp);
		return 0;
	}
	got = mt_fxtw_str_add(&fw, id, s, len);
	fxt_check(got);
	free(tmp);
	return (uint32_t)got;
}

/* ---- threads: 255 indexes, re-registered when full ---- */

struct thread {
	uint32_t pid, tid;
	int32_t min_depth, max_depth;
	int has_depth;
	uint32_t comm;     /* input id of the name given */
	int named;
};

static struct thread *threads; /* by index in thread_ids */
static size_t nthreads, thread_cap;
static struct mt_tidmap thread_ids;

static struct thread *thread_get(uint32_t pid, uint32_t tid)
{
	uint32_t i;
	int is_new;

	if (mt_tidmap_get(&thread_ids, pid, tid, &i, &is_new))
		die(MT_EXIT_SYSTEM, "out of memory");
	if (!is_new)
		return &threads[i];
	grow_or_die(&threads, &thread_cap, i, sizeof(*threads));
	threads[i].pid = pid;
	threads[i].tid = tid;
	nthreads = i + 1;
	return &threads[i];
}

/* Perfetto wants non-zero ids below 2^32; unknown ones get a stand-in. */
static uint64_t koid(uint32_t id)
{
	return id == MT_NONE32 ? 0xfffffffeu : id ? id : 0xfffffffdu;
}

static uint32_t thread_ref(struct thread *t)
{
	int got = mt_fxtw_thread_ref(&fw, (uint32_t)(t - threads), koid(t->pid),
				     koid(t->tid));

	fxt_check(got);
	return (uint32_t)got;
}

static void name_thread(const struct mt_thread *th)
{
	struct thread *t = thread_get(th->pid, th->tid);
	const char *s;
	size_t len;
	char *tmp;

	if (!th->comm || th->comm == t->comm)
		return;
	t->comm = th->comm;
	s = text_need(th->comm, &len, &tmp);
	len = utf8_cut(s, len, 200);
	if (json) {
		/* written by the JSON writer */
		free(tmp);
		return;
	}
	/* names go inline; "process" is a pinned index */
	if (th->pid == th->tid || th->pid == MT_NONE32)
		fxt_check(mt_fxtw_process_name(&fw, koid(th->pid),
					       MT_FXTW_INLINE(s, len)));
	fxt_check(mt_fxtw_thread_name(&fw, koid(th->tid), MT_FXTW_INLINE(s, len),
				      koid(th->pid), MT_FXTW_INDEX(S_PROCESS)));
	free(tmp);
}

/* ---- events ---- */

static unsigned long long nspans, ninstants, ncounters, nskipped_branches,
	deep_threads;

/* An argument: its name a pinned index; a string value an input id until
 * fix_string_args() makes it an index (JSON keeps the id). */
struct arg {
	unsigned type; /* MT_FXT_ARG_INT32, _UINT64, _STRING, _POINTER, _BOOL */
	uint32_t name;
	uint64_t value;
};

/* One event record: an instant, a counter (word: the counter id) or a
 * complete event (word: its end), its strings indexes, no category. */
static void event(unsigned etype, struct thread *t, uint32_t name,
		  uint64_t ts, uint64_t word, const struct arg *args,
		  size_t nargs)
{
	struct mt_fxtw_arg fa[MT_FXT_MAX_ARGS];
	struct mt_fxtw_event ev = {
		.thread = { .index = thread_ref(t) },
		.name = MT_FXTW_INDEX(name), .ts = ts,
		.args = fa, .nargs = (unsigned)nargs,
	};
	size_t i;

	for (i = 0; i < nargs; i++) {
		fa[i] = (struct mt_fxtw_arg){ .type = args[i].type,
					      .name = MT_FXTW_INDEX(args[i].name),
					      .u = args[i].value };
		if (args[i].type == MT_FXT_ARG_STRING)
			fa[i].s = MT_FXTW_INDEX((unsigned)args[i].value);
	}
	fxt_check(mt_fxtw_event(&fw, etype, &ev, word));
}

/* ---- JSON ---- */

static int json_first = 1;

/* \uXXXX of c below 0x10000 */
static void json_u(unsigned c)
{
	static const char hex[] = "0123456789abcdef";
	char e[6] = { '\\', 'u', hex[c >> 12 & 15], hex[c >> 8 & 15],
		      hex[c >> 4 & 15], hex[c & 15] };

	out_mem(e, 6);
}

/*
 * A JSON string of s, valid UTF-8 (text_of): quotes and backslashes
 * escaped, and as \uXXXX every control character (U+0000..U+001F,
 * U+007F..U+009F) and U+2028, U+2029 (line ends to JavaScript).
 */
static void json_str(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, from = 0;

	out_mem("\"", 1);
	for (i = 0; i < len; i++) {
		unsigned c = p[i], n;

		if (c == '"' || c == '\\') {
			out_mem(s + from, i - from);
			out_mem("\\", 1);
			from = i; /* the character itself follows */
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			n = 1;
		} else if (c == 0xc2 && i + 1 < len && p[i + 1] <= 0x9f) {
			n = 2;
			c = p[i + 1];
		} else if (c == 0xe2 && i + 2 < len && p[i + 1] == 0x80 &&
			   (p[i + 2] == 0xa8 || p[i + 2] == 0xa9)) {
			n = 3;
			c = 0x2000 | (p[i + 2] - 0x80);
		} else {
			continue;
		}
		out_mem(s + from, i - from);
		json_u(c);
		i += n - 1;
		from = i + 1;
	}
	out_mem(s + from, len - from);
	out_mem("\"", 1);
}

static void json_sid(uint32_t id, const char *fallback)
{
	const char *s;
	size_t len;
	char *tmp = NULL;

	s = id ? text_of(id, &len, &tmp) : NULL;
	if (!s) {
		s = fallback;
		len = strlen(fallback);
	}
	json_str(s, len);
	free(tmp);
}

/*
 * Perfetto reads a ts of microseconds with decimals as a double and rounds
 * ts * 1000 to ns: exact below 2^51 ns (26 days), off by a nanosecond or
 * more above. So ts counts from a base, given in the metadata: 0 while the
 * first time of the stream is below 2^50 ns, else that time less 2^50 ns
 * in whole seconds; any time within 2^50 ns (13 days) of the first stays
 * exact, whatever the uptime. The first time, not the smallest: the
 * stream is not in time order, and memory must not grow with its length.
 */
#define JSON_EXACT (1ull << 51)
#define JSON_MARGIN (1ull << 50)

static uint64_t json_base;
static int json_base_set, json_head_done;
static unsigned long long json_inexact;

static void json_set_base(uint64_t t)
{
	if (!json || json_base_set || t == MT_NONE64)
		return;
	json_base_set = 1;
	if (t >= JSON_MARGIN)
		json_base = (t - JSON_MARGIN) / 1000000000 * 1000000000;
}

static void json_head(void)
{
	char b[128];
	int n;

	if (json_head_done)
		return;
	json_head_done = 1;
	n = snprintf(b, sizeof(b), "{\"displayTimeUnit\":\"ns\",\"metadata\":"
		     "{\"perf_time_ns_at_ts_0\":%llu},\"traceEvents\":[",
		     (unsigned long long)json_base);
	out_mem(b, (size_t)n);
}

static void json_begin(const char *ph, uint32_t pid, uint32_t tid)
{
	char b[96];
	int n;

	json_head();
	n = snprintf(b, sizeof(b), "%s\n{\"ph\":\"%s\",\"pid\":%llu,\"tid\":%llu",
		     json_first ? "" : ",", ph, (unsigned long long)koid(pid),
		     (unsigned long long)koid(tid));
	json_first = 0;
	out_mem(b, (size_t)n);
}

/* microseconds with three decimals: nanoseconds, exact below JSON_EXACT */
static void json_us(const char *key, uint64_t ns)
{
	char b[64];
	int n;

	if (ns >= JSON_EXACT)
		json_inexact++;
	n = snprintf(b, sizeof(b), ",\"%s\":%llu.%03u", key,
		     (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
	out_mem(b, (size_t)n);
}

/* A time on perf's clock as ts: from the base; unknown, or before the base
 * (more than 13 days before the first time), it is 0. */
static void json_ts(uint64_t t)
{
	if (t == MT_NONE64) {
		t = 0;
	} else if (t < json_base) {
		json_inexact++;
		t = 0;
	} else {
		t -= json_base;
	}
	json_us("ts", t);
}

static void json_lit(const char *s)
{
	out_mem(s, strlen(s));
}

/* ---- records ---- */

static void span(const struct mt_span *s)
{
	struct thread *t = thread_get(s->pid, s->tid);
	struct arg args[6];
	size_t n = 0;

	nspans++;
	if (!t->has_depth || s->depth < t->min_depth)
		t->min_depth = s->depth;
	if (!t->has_depth || s->depth > t->max_depth)
		t->max_depth = s->depth;
	t->has_depth = 1;
	if (json) {
		char b[64];

		json_begin("X", s->pid, s->tid);
		json_lit(",\"name\":");
		json_sid(s->name, "[unknown]");
		json_ts(s->start);
		json_us("dur", s->end - s->start);
		json_lit(",\"args\":{");
		snprintf(b, sizeof(b), "\"address\":\"0x%llx\"",
			 (unsigned long long)s->address);
		json_lit(b);
		if (s->flags & MT_SF_INFERRED)
			json_lit(",\"inferred start\":true");
		if (s->flags & MT_SF_OPEN)
			json_lit(",\"open end\":true");
		if (s->flags & MT_SF_CLIPSTART)
			json_lit(",\"clipped start\":true");
		if (s->flags & MT_SF_CLIPEND)
			json_lit(",\"clipped end\":true");
		if (with_dso && s->dso) {
			json_lit(",\"dso\":");
			json_sid(s->dso, "");
		}
		json_lit("}}");
		return;
	}
	if (s->address)
		args[n++] = (struct arg){ MT_FXT_ARG_POINTER, S_ADDRESS, s->address };
	if (s->flags & MT_SF_INFERRED)
		args[n++] = (struct arg){ MT_FXT_ARG_BOOL, S_INFERRED, 1 };
	if (s->flags & MT_SF_OPEN)
		args[n++] = (struct arg){ MT_FXT_ARG_BOOL, S_OPEN, 1 };
	if (s->flags & MT_SF_CLIPSTART)
		args[n++] = (struct arg){ MT_FXT_ARG_BOOL, S_CLIPSTART, 1 };
	if (s->flags & MT_SF_CLIPEND)
		args[n++] = (struct arg){ MT_FXT_ARG_BOOL, S_CLIPEND, 1 };
	if (with_dso && s->dso)
		args[n++] = (struct arg){ MT_FXT_ARG_STRING, S_DSO, str_ref(s->dso) };
	event(MT_FXT_EV_COMPLETE, t, s->name ? str_ref(s->name) : S_UNKNOWN,
	      s->start, s->end, args, n);
}

/* An instant named by the pinned string name, or, with name_sid, by that
 * input string. */
static void instant(uint32_t pid, uint32_t tid, uint64_t time, uint32_t name,
		    uint32_t name_sid, const struct arg *args, size_t n)
{
	struct thread *t;
	size_t i;

	if (pid == MT_NONE32 || tid == MT_NONE32)
		pid = tid = 0; /* a mark of no thread after the spans: pid 0 */
	t = thread_get(pid, tid);

	ninstants++;
	if (!json) {
		event(MT_FXT_EV_INSTANT, t, name_sid ? str_ref(name_sid) : name,
		      time == MT_NONE64 ? 0 : time, 0, args, n);
		return;
	}
	json_begin("i", pid, tid);
	json_lit(",\"s\":\"t\",\"name\":");
	if (name_sid)
		json_sid(name_sid, pinned[S_MARK]);
	else
		json_str(pinned[name], strlen(pinned[name]));
	json_ts(time);
	json_lit(",\"args\":{");
	for (i = 0; i < n; i++) {
		char b[80];

		if (i)
			json_lit(",");
		json_str(pinned[args[i].name], strlen(pinned[args[i].name]));
		if (args[i].type == MT_FXT_ARG_STRING) {
			json_lit(":");
			json_sid(args[i].value, "");
			continue;
		}
		snprintf(b, sizeof(b), args[i].type == MT_FXT_ARG_POINTER ?
			 ":\"0x%llx\"" : ":%llu", (unsigned long long)args[i].value);
		json_lit(b);
	}
	json_lit("}}");
}

/* String args of instants carry input ids until written. */
static void fix_string_args(struct arg *a, size_t n)
{
	size_t i;

	for (i = 0; i < n && !json; i++)
		if (a[i].type == MT_FXT_ARG_STRING)
			a[i].value = str_ref((uint32_t)a[i].value);
}

static void error_rec(const struct mt_error *e)
{
	struct arg a[3];
	size_t n = 0;

	if (e->msg)
		a[n++] = (struct arg){ MT_FXT_ARG_STRING, S_MESSAGE, e->msg };
	a[n++] = (struct arg){ MT_FXT_ARG_INT32, S_CODE, e->code };
	if (e->ip)
		a[n++] = (struct arg){ MT_FXT_ARG_POINTER, S_IP, e->ip };
	fix_string_args(a, n);
	instant(e->pid, e->tid, e->time,
		e->class == MT_ERRC_LOST ? S_LOST : S_DECODE, 0, a, n);
}

/*
 * A cbr packet gives the frequency of the CPU the trace came from. Perfetto
 * keys a counter track by (process, "name:arg:counter id"): the counter id
 * is the CPU, so each CPU has a track of its own; without a cpu in the
 * stream, it is the tid (the frequency of the CPU the thread ran on).
 */
static void cbr(const struct mt_mark *m)
{
	struct thread *t = thread_get(m->pid, m->tid);
	int by_cpu = m->cpu != MT_NONE32;
	uint64_t id = by_cpu ? m->cpu : koid(m->tid);
	unsigned name = by_cpu ? S_CBR : S_CBR_THREAD;
	struct arg a = { MT_FXT_ARG_INT32, S_MHZ, m->value };

	ncounters++;
	if (json) {
		char b[64];

		json_begin("C", m->pid, m->tid);
		json_lit(",\"name\":");
		json_str(pinned[name], strlen(pinned[name]));
		snprintf(b, sizeof(b), ",\"id\":\"%llu\"", (unsigned long long)id);
		json_lit(b);
		json_ts(m->time);
		snprintf(b, sizeof(b), ",\"args\":{\"MHz\":%llu}}",
			 (unsigned long long)m->value);
		json_lit(b);
		return;
	}
	event(MT_FXT_EV_COUNTER, t, name, m->time == MT_NONE64 ? 0 : m->time, id, &a, 1);
}

static void mark(const struct mt_mark *m)
{
	struct arg a[3];
	size_t n = 0;
	unsigned name;

	switch (m->kind) {
	case MT_MARK_PSB:
		return; /* decoder sync points: noise in a timeline */
	case MT_MARK_CBR:
		cbr(m);
		return;
	case MT_MARK_TRIGGER:
		name = S_TRIGGER;
		if (m->text)
			a[n++] = (struct arg){ MT_FXT_ARG_STRING, S_FUNCTION, m->text };
		break;
	case MT_MARK_SNAPSHOT:
		name = S_SNAPSHOT;
		a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_VALUE, m->value };
		break;
	case MT_MARK_WALLCLOCK:
		/* absolute time of this instant: unix time ns; for any other
		 * time t, unix time = unix_ns + (t - perf_ns) */
		name = S_WALLCLOCK;
		a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_UNIX_NS, m->value };
		a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_PERF_NS, m->time };
		break;
	case MT_MARK_PTWRITE:
		name = S_PTWRITE;
		a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_PAYLOAD, m->value };
		break;
	case MT_MARK_POWER:
		name = S_POWER;
		break;
	case MT_MARK_EVTRACE:
		name = S_EVTRACE;
		break;
	case MT_MARK_EVENT:
		/* a sample of mt-record --events: named by its event */
		if (m->text)
			a[n++] = (struct arg){ MT_FXT_ARG_STRING, S_FUNCTION, m->text };
		a[n++] = (struct arg){ MT_FXT_ARG_UINT64, S_VALUE, m->value };
		if (m->ip)
			a[n++] = (struct arg){ MT_FXT_ARG_POINTER, S_IP, m->ip };
		fix_string_args(a, n);
		instant(m->pid, m->tid, m->time, S_MARK, m->name, a, n);
		return;
	default:
		name = S_MARK;
		break;
	}
	if (m->text && m->kind != MT_MARK_TRIGGER)
		a[n++] = (struct arg){ MT_FXT_ARG_STRING, S_TEXT, m->text };
	fix_string_args(a, n);
	instant(m->pid, m->tid, m->time, name, 0, a, n);
}

/* ---- main loop ---- */

static void header(void)
{
	unsigned i;

	if (json)
		return; /* json_head(), once the base is known */
	fxt_check(mt_fxtw_magic(&fw));
	fxt_check(mt_fxtw_provider(&fw, 0, "mt", 2));
	fxt_check(mt_fxtw_initialization(&fw, MT_FXT_TICKS_NS));
	fxt_check(mt_fxtw_str_pin(&fw, NPINNED));
	for (i = 1; i <= NPINNED; i++)
		fxt_check(mt_fxtw_string(&fw, i, pinned[i], strlen(pinned[i])));
}

static void json_names(void)
{
	size_t i;

	json_head();
	for (i = 0; i < nthreads; i++) {
		struct thread *t = &threads[i];

		if (!t->comm)
			continue;
		if (t->pid == t->tid) {
			json_begin("M", t->pid, t->tid);
			json_lit(",\"name\":\"process_name\",\"args\":{\"name\":");
			json_sid(t->comm, "?");
			json_lit("}}");
		}
		json_begin("M", t->pid, t->tid);
		json_lit(",\"name\":\"thread_name\",\"args\":{\"name\":");
		json_sid(t->comm, "?");
		json_lit("}}");
	}
}

/*
 * Marks of no thread (mt-record's wallclock and snapshot lines) come
 * before any span: they wait for the first span and go on its thread's
 * track, rather than on a track of their own; on pid 0's when no span
 * comes, or when a string they may name is about to be redefined.
 */
static struct mt_mark pending[16];
static size_t npending;

static void flush_pending(uint32_t pid, uint32_t tid)
{
	size_t i;

	for (i = 0; i < npending; i++) {
		pending[i].pid = pid;
		pending[i].tid = tid;
		mark(&pending[i]);
	}
	npending = 0;
}

/* Whether a waiting mark names string id (about to be redefined). */
static int pending_uses(uint32_t id)
{
	size_t i;

	for (i = 0; i < npending; i++)
		if (pending[i].name == id || pending[i].text == id)
			return 1;
	return 0;
}

static void run(void)
{
	struct mt_record r;
	int got, show = mt_progress_enabled();
	unsigned long long nrec = 0;

	while ((got = mt_reader_next(&in, &r)) > 0) {
		if (show && !(++nrec & 0xfffff))
			fprintf(stderr, "\r%s: %llu records", mt_progname(), nrec);
		switch (r.type) {
		case MT_REC_STRING:
			if (pending_uses(r.u.string.id))
				flush_pending(0, 0);
			mt_fxtw_str_forget(&fw, r.u.string.id);
			break;
		case MT_REC_THREAD:
			name_thread(&r.u.thread);
			break;
		case MT_REC_SPAN:
			json_set_base(r.u.span.start);
			if (npending)
				flush_pending(r.u.span.pid, r.u.span.tid);
			span(&r.u.span);
			break;
		case MT_REC_MARK:
			json_set_base(r.u.mark.time);
			if ((r.u.mark.pid == MT_NONE32 || r.u.mark.tid == MT_NONE32) &&
			    !nspans && npending < sizeof(pending) / sizeof(pending[0]))
				pending[npending++] = r.u.mark;
			else
				mark(&r.u.mark);
			break;
		case MT_REC_ERROR:
			json_set_base(r.u.error.time);
			error_rec(&r.u.error);
			break;
		case MT_REC_BRANCH:
		case MT_REC_SAMPLE:
			nskipped_branches++;
			break;
		default:
			break;
		}
	}
	if (got < 0)
		die_reader(&in, got, in_name);
	flush_pending(0, 0);
	if (show && nrec > 0xfffff)
		fputs("\r\033[K", stderr);
}

static void report(int verbose)
{
	/* everything is written by now: what was flushed and what is not yet */
	unsigned long long bytes = out_total();
	size_t i;

	for (i = 0; i < nthreads; i++) {
		struct thread *t = &threads[i];

		if (t->has_depth && t->max_depth - t->min_depth >= 512) {
			if (!deep_threads++)
				warn("%s: thread %u nests %d deep: Perfetto drops "
				     "slices deeper than 512", in_name, t->tid,
				     t->max_depth - t->min_depth + 1);
		}
	}
	if (json_inexact)
		warn("%s: %llu times or durations lie more than 13 days from "
		     "the first time: not exact in JSON (Perfetto reads them as "
		     "doubles; times before the base are written as 0)", in_name,
		     json_inexact);
	if (nskipped_branches && !nspans)
		warn("%s: %llu branch and sample records but no spans: "
		     "run mt-stacks first", in_name, nskipped_branches);
	if (!verbose)
		return;
	fprintf(stderr, "%s: %s: %llu spans, %llu instants, %llu counters, "
		"%zu threads, %llu bytes", mt_progname(), out_name, nspans,
		ninstants, ncounters, nthreads, bytes);
	if (nspans)
		fprintf(stderr, " (%.1f per span)", (double)bytes / (double)nspans);
	if (!json)
		fprintf(stderr, "; %llu string records (%llu re-registered), "
			"%llu thread records",
			(unsigned long long)fw.string_records,
			(unsigned long long)fw.evictions,
			(unsigned long long)fw.thread_records);
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_DSO, OPT_GZIP, OPT_ALLOW_EMPTY };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "dso", no_argument, NULL, OPT_DSO },
		{ "gzip", no_argument, NULL, OPT_GZIP },
		{ "allow-empty", no_argument, NULL, OPT_ALLOW_EMPTY },
		MT_FILTER_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct mt_filter_io io = { 0 };
	int gzip = 0, allow_empty = 0, c, err;

	mt_set_progname(argv[0]);
	mt_set_manual();
	mt_finish_on_interrupt();
	while ((c = mt_getopt(argc, argv, "o:v", longopts, USAGE)) != -1) {
		switch (c) {
		case OPT_JSON:
			json = 1;
			break;
		case OPT_DSO:
			with_dso = 1;
			break;
		case OPT_GZIP:
			gzip = 1;
			break;
		case OPT_ALLOW_EMPTY:
			allow_empty = 1;
			break;
		default:
			mt_filter_option(&io, c, USAGE);
		}
	}
	mt_filter_open_or_die(&io, argc - optind, argv + optind, USAGE);
	in_name = io.in_name;
	if (io.out_name)
		out_name = io.out_name;
	if (gzip || output_name_is_gz(io.out_name)) {
		output_binary_or_die("compressed data");
		output_gzip();
	} else if (!json) {
		output_binary_or_die("an FXT trace");
	}
	if ((err = mt_reader_init_fd(&in, io.in_fd, NULL, 0)))
		die_mt(err, "%s", in_name);
	text_init(&in, in_name);
	mt_fxtw_init(&fw, fxt_write, NULL);
	header();
	run();
	if (json) {
		json_names();
		json_lit("\n]}\n");
	}
	report(io.verbose);
	if (!nspans && !ninstants && !ncounters) {
		/* nothing recorded replaces nothing */
		if (output_discard()) {
			if (allow_empty)
				return MT_EXIT_OK;
			die(MT_EXIT_DATA, "%s: no spans, instants or counters: "
			    "nothing written, %s left as it was", in_name, out_name);
		}
		out_flush();
		close_stdout_or_die();
		if (allow_empty)
			return MT_EXIT_OK;
		die(MT_EXIT_DATA, "%s: no spans, instants or counters: the "
		    "trace is empty", in_name);
	}
	out_flush();
	mt_fxtw_release(&fw);
	mt_reader_release(&in);
	close_stdout_or_die();
	return MT_EXIT_OK;
}
