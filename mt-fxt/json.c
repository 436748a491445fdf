/*
 * The JSON writer: writer.h's records as Chrome's trace event format
 * (json.h), into the output buffer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "fxtread.h"
#include "json.h"
#include "banned.h"

static const char *in_name;
static int json_first = 1;

/* \uXXXX of c below 0x10000 */
static void json_u(unsigned c)
{
	static const char hex[] = "0123456789abcdef";
	char e[6] = { '\\', 'u', hex[c >> 12 & 15], hex[c >> 8 & 15],
		      hex[c >> 4 & 15], hex[c & 15] };

	out_mem(e, 6);
}

/* A JSON string of s, valid UTF-8, escaped as json.h says. */
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

static void json_pinned(unsigned name)
{
	json_str(pinned_names[name], strlen(pinned_names[name]));
}

/* The string of input string id, or of fallback when id is 0 or not
 * defined. */
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

static void json_saw_time(uint64_t t)
{
	if (json_base_set || t == MT_NONE64)
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

/* The start of an event of phase ph on t, after the head. */
static void json_event(const char *ph, const struct thread *t)
{
	char b[96];
	int n;

	json_head();
	n = snprintf(b, sizeof(b), "%s\n{\"ph\":\"%s\",\"pid\":%llu,\"tid\":%llu",
		     json_first ? "" : ",", ph, (unsigned long long)koid(t->pid),
		     (unsigned long long)koid(t->tid));
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

/* The arguments and the end of an instant or counter. */
static void json_args(const struct arg *args, size_t n)
{
	size_t i;

	out_lit(",\"args\":{");
	for (i = 0; i < n; i++) {
		char b[80];

		if (i)
			out_lit(",");
		json_pinned(args[i].name);
		if (args[i].type == MT_FXT_ARG_STRING) {
			out_lit(":");
			json_sid((uint32_t)args[i].value, "");
			continue;
		}
		if (args[i].type == MT_FXT_ARG_INT64)
			snprintf(b, sizeof(b), ":%lld", (long long)args[i].value);
		else
			snprintf(b, sizeof(b), args[i].type == MT_FXT_ARG_POINTER ?
				 ":\"0x%llx\"" : ":%llu", (unsigned long long)args[i].value);
		out_lit(b);
	}
	out_lit("}}");
}

/* The head waits for the base: the first event writes it. */
static void json_begin(const char *in, const char *out)
{
	in_name = in;
}

static void json_string_defined(uint32_t id)
{
}

/* Names are written at the end, from the thread table; those of threads
 * the stream has not (no comm: the walk's own, a few) kept here. */
static struct {
	uint32_t index;
	char name[32];
} own_names[4];
static size_t nown;

static void json_thread_name(const struct thread *t, const char *s, size_t len)
{
	if (t->comm || nown == sizeof(own_names) / sizeof(own_names[0]))
		return;
	own_names[nown].index = t->index;
	snprintf(own_names[nown].name, sizeof(own_names[nown].name), "%.*s", (int)len, s);
	nown++;
}

/* The name json_thread_name() kept for t, or NULL. */
static const char *own_name(const struct thread *t)
{
	size_t i;

	for (i = 0; i < nown; i++)
		if (own_names[i].index == t->index)
			return own_names[i].name;
	return NULL;
}

/* A name of the walk's own (plain ASCII) as a JSON string. */
static void json_own(const char *s)
{
	json_str(s, strlen(s));
}

static void json_complete(const struct thread *t, const char *name, size_t len,
			  uint64_t start, uint64_t end, const struct arg *args, size_t n)
{
	json_event("X", t);
	out_lit(",\"name\":");
	json_str(name, len);
	json_ts(start);
	json_us("dur", end - start);
	json_args(args, n);
}

static void json_span(const struct thread *t, const struct mt_span *s)
{
	char b[64];

	json_event("X", t);
	out_lit(",\"name\":");
	json_sid(s->name, pinned_names[S_UNKNOWN]);
	json_ts(s->start);
	json_us("dur", s->end - s->start);
	snprintf(b, sizeof(b), ",\"args\":{\"address\":\"0x%llx\"",
		 (unsigned long long)s->address);
	out_lit(b);
	if (s->flags & MT_SF_INFERRED)
		out_lit(",\"inferred start\":true");
	if (s->flags & MT_SF_OPEN)
		out_lit(",\"open end\":true");
	if (s->flags & MT_SF_CLIPSTART)
		out_lit(",\"clipped start\":true");
	if (s->flags & MT_SF_CLIPEND)
		out_lit(",\"clipped end\":true");
	if (s->dso) {
		out_lit(",\"dso\":");
		json_sid(s->dso, "");
	}
	out_lit("}}");
}

static void json_instant(const struct thread *t, uint64_t time, unsigned name,
			 uint32_t name_sid, const struct arg *args, size_t n)
{
	json_event("i", t);
	out_lit(",\"s\":\"t\",\"name\":");
	if (name_sid)
		json_sid(name_sid, pinned_names[name]);
	else
		json_pinned(name);
	json_ts(time);
	json_args(args, n);
}

static void json_counter(const struct thread *t, uint64_t time, unsigned name,
			 uint64_t id, const struct arg *a)
{
	char b[64];

	json_event("C", t);
	out_lit(",\"name\":");
	json_pinned(name);
	snprintf(b, sizeof(b), ",\"id\":\"%llu\"", (unsigned long long)id);
	out_lit(b);
	json_ts(time);
	json_args(a, 1);
}

/* M events naming the processes and threads, and the end of the list. */
static void json_end(const struct thread *threads, size_t n)
{
	size_t i;

	json_head();
	for (i = 0; i < n; i++) {
		const struct thread *t = &threads[i];
		const char *own = t->comm ? NULL : own_name(t);

		if (!t->comm && !own)
			continue;
		if (t->pid == t->tid) {
			json_event("M", t);
			out_lit(",\"name\":\"process_name\",\"args\":{\"name\":");
			if (own)
				json_own(own);
			else
				json_sid(t->comm, "?");
			out_lit("}}");
		}
		json_event("M", t);
		out_lit(",\"name\":\"thread_name\",\"args\":{\"name\":");
		if (own)
			json_own(own);
		else
			json_sid(t->comm, "?");
		out_lit("}}");
	}
	out_lit("\n]}\n");
}

static void json_warn(void)
{
	if (json_inexact)
		warn("%s: %llu times or durations lie more than 13 days from "
		     "the first time: not exact in JSON (Perfetto reads them as "
		     "doubles; times before the base are written as 0)", in_name,
		     json_inexact);
}

static void json_verbose(void)
{
}

static void json_release(void)
{
}

const struct writer json_writer = {
	.binary = NULL,
	.begin = json_begin,
	.saw_time = json_saw_time,
	.string_defined = json_string_defined,
	.thread_name = json_thread_name,
	.span = json_span,
	.instant = json_instant,
	.complete = json_complete,
	.counter = json_counter,
	.end = json_end,
	.warn = json_warn,
	.verbose = json_verbose,
	.release = json_release,
};
