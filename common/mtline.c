/*
 * mt-record's "# mt:" lines: see mtline.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "mtline.h"
#include "banned.h"

/* The next blank-separated word of p[0..len) from *at, or an empty one. */
static struct mt_slice word(const char *p, size_t len, size_t *at)
{
	struct mt_slice w;
	size_t i = *at;

	while (i < len && p[i] == ' ')
		i++;
	w.p = p + i;
	while (i < len && p[i] != ' ')
		i++;
	w.len = (size_t)(p + i - w.p);
	*at = i;
	return w;
}

static int num(struct mt_slice w, int base, uint64_t *v)
{
	char buf[32], *end;

	if (!w.len || w.len >= sizeof(buf) || w.p[0] == '-' || w.p[0] == '+')
		return -1;
	memcpy(buf, w.p, w.len);
	buf[w.len] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, base);
	return *end || errno ? -1 : 0;
}

/* The rest of the line after the blanks at *at. */
static struct mt_slice rest(const char *p, size_t len, size_t at)
{
	while (at < len && p[at] == ' ')
		at++;
	return (struct mt_slice){ p + at, len - at };
}

static int is(struct mt_slice w, const char *s)
{
	return w.len == strlen(s) && !memcmp(w.p, s, w.len);
}

/* A signed decimal number. */
static int snum(struct mt_slice w, uint64_t *v)
{
	int neg = w.len && w.p[0] == '-';

	if (neg)
		w.p++, w.len--;
	if (num(w, 10, v) || *v > (uint64_t)INT64_MAX + neg)
		return -1;
	if (neg)
		*v = 0 - *v;
	return 0;
}

/* "START ARG " of a region line, before its thread's and address: the
 * start a time or "-" (not known). */
static int region(const char *p, size_t len, size_t *at, struct mt_mark *m)
{
	struct mt_slice w = word(p, len, at);

	if (w.len == 1 && w.p[0] == '-')
		m->start = MT_NONE64;
	else if (mt_perf_parse_time(w.p, w.len, &m->start))
		return -1;
	return snum(word(p, len, at), &m->value);
}

/* "PID/TID 0xADDR SYMBOL" of a trigger or region line (kind), from at. */
static int trigger(const char *p, size_t len, size_t at, struct mt_mt_line *out, uint8_t kind)
{
	struct mt_mark *m = &out->mark;
	struct mt_slice w;
	const char *slash;
	uint64_t pid, tid;

	if (kind == MT_MARK_REGION && region(p, len, &at, m))
		return MT_MTLINE_BAD;
	if (kind == MT_MARK_OFF && num(word(p, len, &at), 10, &m->value))
		return MT_MTLINE_BAD;
	w = word(p, len, &at);
	slash = memchr(w.p, '/', w.len);
	if (!slash || num((struct mt_slice){ w.p, (size_t)(slash - w.p) }, 10, &pid) ||
	    num((struct mt_slice){ slash + 1, (size_t)(w.p + w.len - slash - 1) }, 10, &tid) ||
	    pid > UINT32_MAX || tid > UINT32_MAX)
		return MT_MTLINE_BAD;
	m->pid = (uint32_t)pid;
	m->tid = (uint32_t)tid;
	w = word(p, len, &at);
	if (w.len > 2 && w.p[0] == '0' && w.p[1] == 'x')
		w.p += 2, w.len -= 2;
	if (num(w, 16, &m->ip))
		return MT_MTLINE_BAD;
	m->kind = kind;
	out->name = kind == MT_MARK_REGION ? "region" : kind == MT_MARK_OFF ? "off" : "trigger";
	out->text = rest(p, len, at);
	return MT_MTLINE_MARK;
}

int mt_parse_mt_line(const char *p, size_t len, struct mt_mt_line *out)
{
	struct mt_mark *m = &out->mark;
	struct mt_slice kind, t;
	size_t at = 6;
	int r;

	if (len < 6 || memcmp(p, "# mt: ", 6))
		return MT_MTLINE_NOT;
	memset(out, 0, sizeof(*out));
	m->pid = m->tid = m->cpu = MT_NONE32; /* no thread's */
	m->start = MT_NONE64;
	kind = word(p, len, &at);
	if (is(kind, "entry-only") || is(kind, "event")) {
		/* for the whole recording, no time: a function probed
		 * without a return probe; an event whose samples are
		 * instants rather than stacks */
		out->text = rest(p, len, at);
		if (!out->text.len)
			return MT_MTLINE_BAD;
		m->time = MT_NONE64;
		m->kind = MT_MARK_GENERIC;
		out->name = kind.len == 5 ? "event" : "entry-only";
		return MT_MTLINE_MARK;
	}
	t = word(p, len, &at);
	if (is(kind, "trigger") || is(kind, "region") || is(kind, "off")) {
		r = trigger(p, len, at, out, kind.len == 6 ? MT_MARK_REGION :
					     kind.len == 3 ? MT_MARK_OFF : MT_MARK_TRIGGER);
		if (r != MT_MTLINE_MARK)
			return r;
	} else if (is(kind, "snapshot")) {
		m->kind = MT_MARK_SNAPSHOT;
		if (num(t, 10, &m->value))
			return MT_MTLINE_BAD;
		t = word(p, len, &at);
		out->name = "snapshot";
	} else if (is(kind, "wallclock")) {
		m->kind = MT_MARK_WALLCLOCK;
		if (num(word(p, len, &at), 10, &m->value))
			return MT_MTLINE_BAD;
		out->name = "wallclock";
	} else {
		return MT_MTLINE_UNKNOWN;
	}
	if (mt_perf_parse_time(t.p, t.len, &m->time))
		return MT_MTLINE_BAD;
	return MT_MTLINE_MARK;
}

/* A mark of no thread, no time: what mt_parse_mt_line() starts from. */
static struct mt_mt_line blank(uint8_t kind, const char *name)
{
	struct mt_mt_line ml;

	memset(&ml, 0, sizeof(ml));
	ml.mark.pid = ml.mark.tid = ml.mark.cpu = MT_NONE32;
	ml.mark.time = ml.mark.start = MT_NONE64;
	ml.mark.kind = kind;
	ml.name = name;
	ml.text = (struct mt_slice){ "", 0 }; /* a pointer even when empty */
	return ml;
}

struct mt_mt_line mt_mt_trigger(uint64_t time, uint32_t pid, uint32_t tid,
				uint64_t ip, const char *sym)
{
	struct mt_mt_line ml = blank(MT_MARK_TRIGGER, "trigger");

	ml.mark.time = time;
	ml.mark.pid = pid;
	ml.mark.tid = tid;
	ml.mark.ip = ip;
	ml.text = (struct mt_slice){ sym, strlen(sym) };
	return ml;
}

struct mt_mt_line mt_mt_region(uint64_t time, uint32_t pid, uint32_t tid, uint64_t start,
			       int64_t arg, uint64_t ip, const char *sym)
{
	struct mt_mt_line ml = mt_mt_trigger(time, pid, tid, ip, sym);

	ml.mark.kind = MT_MARK_REGION;
	ml.name = "region";
	ml.mark.start = start;
	ml.mark.value = (uint64_t)arg;
	return ml;
}

struct mt_mt_line mt_mt_off(uint64_t time, uint32_t pid, uint32_t tid, uint64_t rate,
			    uint64_t ip, const char *sym)
{
	struct mt_mt_line ml = mt_mt_trigger(time, pid, tid, ip, sym);

	ml.mark.kind = MT_MARK_OFF;
	ml.name = "off";
	ml.mark.value = rate;
	return ml;
}

struct mt_mt_line mt_mt_snapshot(uint64_t no, uint64_t time)
{
	struct mt_mt_line ml = blank(MT_MARK_SNAPSHOT, "snapshot");

	ml.mark.value = no;
	ml.mark.time = time;
	return ml;
}

struct mt_mt_line mt_mt_wallclock(uint64_t mono, uint64_t real_ns)
{
	struct mt_mt_line ml = blank(MT_MARK_WALLCLOCK, "wallclock");

	ml.mark.time = mono;
	ml.mark.value = real_ns;
	return ml;
}

struct mt_mt_line mt_mt_entry_only(const char *text, size_t len)
{
	struct mt_mt_line ml = blank(MT_MARK_GENERIC, "entry-only");

	ml.text = (struct mt_slice){ text, len };
	return ml;
}

struct mt_mt_line mt_mt_event(const char *text, size_t len)
{
	struct mt_mt_line ml = blank(MT_MARK_GENERIC, "event");

	ml.text = (struct mt_slice){ text, len };
	return ml;
}

int mt_format_mt_line(struct mt_buf *b, const struct mt_mt_line *ml)
{
	const struct mt_mark *m = &ml->mark;
	char head[160];
	int n;

	if (m->kind == MT_MARK_REGION && m->start == MT_NONE64)
		n = snprintf(head, sizeof(head), "# mt: region %" PRIu64 ".%09" PRIu64
			     " - %" PRId64 " %" PRIu32 "/%" PRIu32 " 0x%" PRIx64,
			     m->time / 1000000000u, m->time % 1000000000u, (int64_t)m->value,
			     m->pid, m->tid, m->ip);
	else if (m->kind == MT_MARK_REGION)
		n = snprintf(head, sizeof(head), "# mt: region %" PRIu64 ".%09" PRIu64
			     " %" PRIu64 ".%09" PRIu64 " %" PRId64 " %" PRIu32 "/%" PRIu32
			     " 0x%" PRIx64, m->time / 1000000000u, m->time % 1000000000u,
			     m->start / 1000000000u, m->start % 1000000000u, (int64_t)m->value,
			     m->pid, m->tid, m->ip);
	else if (m->kind == MT_MARK_TRIGGER)
		n = snprintf(head, sizeof(head), "# mt: trigger %" PRIu64 ".%09" PRIu64
			     " %" PRIu32 "/%" PRIu32 " 0x%" PRIx64, m->time / 1000000000u,
			     m->time % 1000000000u, m->pid, m->tid, m->ip);
	else if (m->kind == MT_MARK_OFF)
		n = snprintf(head, sizeof(head), "# mt: off %" PRIu64 ".%09" PRIu64 " %" PRIu64
			     " %" PRIu32 "/%" PRIu32 " 0x%" PRIx64, m->time / 1000000000u,
			     m->time % 1000000000u, m->value, m->pid, m->tid, m->ip);
	else if (m->kind == MT_MARK_SNAPSHOT)
		n = snprintf(head, sizeof(head), "# mt: snapshot %" PRIu64 " %" PRIu64
			     ".%09" PRIu64, m->value, m->time / 1000000000u,
			     m->time % 1000000000u);
	else if (m->kind == MT_MARK_WALLCLOCK)
		n = snprintf(head, sizeof(head), "# mt: wallclock %" PRIu64 ".%09" PRIu64
			     " %" PRIu64, m->time / 1000000000u, m->time % 1000000000u,
			     m->value);
	else if (m->kind == MT_MARK_GENERIC && ml->name &&
		 (!strcmp(ml->name, "entry-only") || !strcmp(ml->name, "event")))
		n = snprintf(head, sizeof(head), "# mt: %s", ml->name);
	else
		return MT_EINVAL;
	if (n < 0 || (size_t)n >= sizeof(head))
		return MT_EINVAL;
	if (mt_buf_add(b, head, (size_t)n) ||
	    (ml->text.len && (mt_buf_add(b, " ", 1) ||
			      mt_buf_add(b, ml->text.p, ml->text.len))) ||
	    mt_buf_add(b, "\n", 1))
		return MT_ENOMEM;
	return 0;
}
