/*
 * mt-report's views of the walk other than the report: every call in
 * time order (--calls) and collapsed stacks (--folded). See report.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "err.h"
#include "extsort.h"
#include "quote.h"
#include "stream.h"
#include "xalloc.h"
#include "cmp.h"
#include "report.h"
#include "banned.h"

/* ---- --calls: each call and instant kept, by start over every thread ---- */

struct line {
	uint64_t start, end; /* clipped to the window */
	uint32_t thread, fn;
	uint32_t depth, flags; /* CALL_*, LINE_* */
	uint64_t seq;        /* the walk's order: parents first */
};

enum { LINE_CLIPSTART = 2, LINE_CLIPEND = 4 };

static struct mt_extsort lines;
static struct calls_opts co;
static uint64_t win_from, win_to = MT_NONE64, base;
static uint64_t nseen;

static void sort_check(int err)
{
	if (err)
		die_mt(err, "sorting the calls in a temporary file");
}

static int by_time(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	MT_CMP_BY(x->start, y->start);
	MT_CMP_BY(x->thread, y->thread);
	return MT_CMP(x->seq, y->seq);
}

void calls_init(const struct calls_opts *o, uint64_t b)
{
	uint64_t at;

	co = *o;
	base = b == MT_NONE64 ? 0 : b;
	at = co.absolute ? 0 : base;
	/* as mt-slice's window (mt-slice.c, see_time()) */
	win_from = co.have_from ? at + co.from : 0;
	if (co.dur != MT_NONE64)
		win_to = at + co.from + co.dur;
	else
		win_to = co.have_to ? at + co.to : MT_NONE64;
	sort_check(mt_extsort_init(&lines, sizeof(struct line), by_time, 1u << 15, 32));
}

void calls_seen(const struct call *c, size_t depth)
{
	struct line l;

	if (co.have_max_depth && (int64_t)depth >= co.max_depth)
		return;
	if (!(c->flags & CALL_INSTANT) && co.have_min && c->end - c->start < co.min_dur)
		return;
	memset(&l, 0, sizeof(l));
	l.start = c->start;
	l.end = c->end;
	if (c->flags & CALL_INSTANT) {
		/* kept when its time is in the window */
		if (l.start < win_from || l.start >= win_to)
			return;
	} else {
		/* one that crosses an edge is cut to it, as mt-slice cuts it */
		if (l.end <= win_from || l.start >= win_to ||
		    (l.start == l.end && l.start < win_from))
			return;
		if (l.start < win_from) {
			l.start = win_from;
			l.flags |= LINE_CLIPSTART;
		}
		if (l.end > win_to) {
			l.end = win_to;
			l.flags |= LINE_CLIPEND;
		}
	}
	l.thread = c->thread;
	l.fn = c->fn;
	l.depth = (uint32_t)depth;
	l.flags |= c->flags;
	l.seq = nseen++;
	sort_check(mt_extsort_add(&lines, &l));
}

/* uftrace's replay colors: what took long stands out */
#define C_SLOW "\033[31m"  /* 1 ms and more */
#define C_MID "\033[33m"   /* 1 us and more */
#define C_MARK "\033[36m"  /* an instant */
#define C_OFF "\033[0m"

static void print_line(const struct line *l, char **q, size_t *qcap)
{
	uint32_t pid, tid;
	size_t len;
	const char *name = mt_intern_str(&names, l->fn, &len);
	uint64_t rel = l->start - (co.absolute ? 0 : base);
	int instant = l->flags & CALL_INSTANT;
	uint64_t dur = l->end - l->start;

	thread_ids(l->thread, &pid, &tid);
	if (co.json) {
		printf("%s\n{\"pid\":%u,\"tid\":%u,\"ts\":%llu,\"dur\":%llu,\"depth\":%u,"
		       "\"name\":", nseen++ ? "," : "", pid, tid,
		       (unsigned long long)l->start, (unsigned long long)dur, l->depth);
		json_bytes(name, len);
		if (instant)
			printf(",\"instant\":true");
		if (l->flags & LINE_CLIPSTART)
			printf(",\"clipped_start\":true");
		if (l->flags & LINE_CLIPEND)
			printf(",\"clipped_end\":true");
		putchar('}');
		return;
	}
	printf("%6llu.%09llu", (unsigned long long)(rel / 1000000000u),
	       (unsigned long long)(rel % 1000000000u));
	if (instant) {
		printf("%12s", "");
	} else {
		if (co.color)
			fputs(dur >= 1000000 ? C_SLOW : dur >= 1000 ? C_MID : "", stdout);
		print_time(dur);
		if (co.color && dur >= 1000)
			fputs(C_OFF, stdout);
	}
	printf(" %7u  %*s", tid, (int)(2 * (l->depth < 200 ? l->depth : 200)), "");
	if (MT_QUOTE_SIZE(len) > *qcap) {
		*qcap = MT_QUOTE_SIZE(len);
		free(*q);
		*q = xmalloc(*qcap);
	}
	mt_quote(*q, *qcap, name, len);
	if (instant)
		printf(co.color ? C_MARK "@ %s" C_OFF : "@ %s", *q);
	else
		fputs(*q, stdout);
	if (l->flags & (LINE_CLIPSTART | LINE_CLIPEND))
		printf(" (%s%s%s)", l->flags & LINE_CLIPSTART ? "began before" : "",
		       (l->flags & LINE_CLIPSTART) && (l->flags & LINE_CLIPEND) ? ", " : "",
		       l->flags & LINE_CLIPEND ? "ends after" : "");
	putchar('\n');
}

void calls_print(void)
{
	const void *p;
	char *q = NULL;
	size_t qcap = 0;
	int got;

	sort_check(mt_extsort_sort(&lines));
	nseen = 0;
	if (co.json)
		putchar('[');
	else
		printf("%16s %11s %7s  %s\n", co.absolute ? "time (s)" : "from start (s)",
		       "duration", "tid", "function");
	while ((got = mt_extsort_next(&lines, &p)) > 0)
		print_line(p, &q, &qcap);
	sort_check(got);
	if (co.json)
		printf("\n]\n");
	free(q);
	mt_extsort_release(&lines);
}

/* ---- --folded: self time by distinct stack ---- */

int folded_per_thread;
static struct mt_intern stacks; /* a stack: its names' ids, as bytes */
static uint64_t *self_of;       /* by stack id */
static size_t self_cap;
static uint32_t *key;
static size_t key_cap;

void folded_init(void)
{
	mt_intern_init(&stacks);
}

void folded_popped(const struct open_call *stk, size_t n, uint64_t self)
{
	size_t i, k = 0;
	uint32_t id;

	grow_or_die(&key, &key_cap, n + 2, sizeof(*key));
	if (folded_per_thread)
		key[k++] = stk[0].c.thread;
	for (i = 0; i <= n; i++)
		key[k++] = stk[i].c.fn;
	if (mt_intern_get(&stacks, (const char *)key, k * sizeof(*key), &id, NULL))
		die(MT_EXIT_SYSTEM, "out of memory");
	grow_or_die(&self_of, &self_cap, id, sizeof(*self_of));
	self_of[id] += self;
}

/* A frame's name, as the folded format can hold it: ';' separates frames
 * and a line ends at '\n', so those (and the other control bytes) become
 * '_'. */
static void put_frame(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		putchar(ch == ';' || ch < 0x20 || ch == 0x7f ? '_' : ch);
	}
}

void folded_print(void)
{
	size_t n = mt_intern_count(&stacks), i, j, len, k;

	for (i = 1; i <= n; i++) {
		const char *v = mt_intern_str(&stacks, (uint32_t)i, &len);

		k = len / sizeof(uint32_t);
		for (j = 0; j < k; j++) {
			uint32_t x;

			memcpy(&x, v + j * sizeof(x), sizeof(x));
			if (j)
				putchar(';');
			if (j == 0 && folded_per_thread) {
				uint32_t pid, tid;

				thread_ids(x, &pid, &tid);
				printf("[thread %u]", tid);
			} else {
				const char *name = mt_intern_str(&names, x, &len);

				put_frame(name, len);
			}
		}
		printf(" %llu\n", (unsigned long long)(i < self_cap ? self_of[i] : 0));
	}
	free(self_of);
	free(key);
	mt_intern_release(&stacks);
}
