/*
 * mt-record's "# mt:" lines: see mtline.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static int trigger(const char *p, size_t len, size_t at, struct mt_mt_line *out)
{
	struct mt_mark *m = &out->mark;
	struct mt_slice w = word(p, len, &at);
	const char *slash = memchr(w.p, '/', w.len);
	uint64_t pid, tid;

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
	m->kind = MT_MARK_TRIGGER;
	out->name = "trigger";
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
	if (is(kind, "trigger")) {
		r = trigger(p, len, at, out);
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
