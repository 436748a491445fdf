/*
 * The input's lines, parsed on worker threads and handed back in order
 * (lines.h).
 *
 * The input is read into CHUNKS buffers in turn; a line never spans two
 * (its start is copied into the next buffer when the read one fills). The
 * lines are cut into batches of at most BATCH lines of one buffer, queued
 * in input order. Parsers (the workers and, while it waits, the calling
 * thread) take the oldest batch not taken; the calling thread hands the
 * oldest batch to the caller when it is parsed. A buffer is read into
 * again once every batch of its lines has been handed over.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "die.h"
#include "lines.h"
#include "xalloc.h"
#include "banned.h"

#define CHUNKS 3
#define CHUNK_CAP (SP_MAX_LINE + 2) /* a line of SP_MAX_LINE and its CR LF */
#define BATCH 512
#define NBATCH 16

struct batch {
	int chunk;
	size_t n;
	int done; /* parsed (under the lock) */
	struct sp_line line[BATCH];
};

static struct {
	char *buf;
	size_t refs; /* batches of its lines not yet handed over */
} chunk[CHUNKS];

static struct batch *ring[NBATCH];
/* batch numbers: handed over < taken <= queued <= filled (the open one) */
static uint64_t handed, taken, queued;
static struct batch *open_batch;
static int quitting;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER; /* a batch queued, or quit */
static pthread_cond_t parsed = PTHREAD_COND_INITIALIZER; /* a batch parsed */
static pthread_t *workers;
static int nworkers;

static const char *in_name;
static sp_line_fn *handler;

/* ---- parsing ---- */

static void parse_batch(struct batch *b)
{
	struct mt_perf_hint hint = { { NULL, 0 }, { NULL, 0 } };
	size_t i;

	for (i = 0; i < b->n; i++) {
		struct sp_line *s = &b->line[i];

		s->parsed = s->what == SP_LINE && !(s->len && s->p[0] == '#');
		if (!s->parsed) {
			hint.sym.len = 0;
			continue;
		}
		s->ret = mt_perf_parse_line_hinted(s->p, s->len, &s->l, &s->why,
						   &hint);
		if (s->ret)
			hint.sym.len = 0;
		else
			mt_perf_hint_after(&s->l, &hint);
	}
}

/* Take the oldest batch not taken, under the lock; NULL if none. */
static struct batch *take(void)
{
	if (taken == queued)
		return NULL;
	return ring[taken++ % NBATCH];
}

/* Parse b, with the lock held on entry and on return. */
static void parse_unlocked(struct batch *b)
{
	pthread_mutex_unlock(&lock);
	parse_batch(b);
	pthread_mutex_lock(&lock);
	b->done = 1;
	pthread_cond_broadcast(&parsed);
}

static void *worker(void *arg)
{
	struct batch *b;

	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		while (!(b = take()) && !quitting)
			pthread_cond_wait(&work, &lock);
		if (!b)
			break;
		parse_unlocked(b);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void start_workers(int n)
{
	sigset_t all, old;
	int i, err;

	if (n <= 0)
		return;
	workers = xcalloc((size_t)n, sizeof(*workers));
	/* signals are the calling thread's */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < n; i++) {
		if ((err = pthread_create(&workers[i], NULL, worker, NULL))) {
			errno = err;
			die_errno(MT_EXIT_SYSTEM, "starting a parser thread");
		}
		nworkers++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void stop_workers(void)
{
	int i;

	pthread_mutex_lock(&lock);
	quitting = 1;
	pthread_cond_broadcast(&work);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < nworkers; i++)
		pthread_join(workers[i], NULL);
	free(workers);
	workers = NULL;
	nworkers = 0;
}

/* ---- handing over ---- */

/* Hand the oldest queued batch over, parsing batches while it is not
 * parsed; 0 if none is queued. */
static int hand_over(void)
{
	struct batch *b, *mine;
	size_t i;

	pthread_mutex_lock(&lock);
	if (handed == queued) {
		pthread_mutex_unlock(&lock);
		return 0;
	}
	b = ring[handed % NBATCH];
	while (!b->done) {
		if ((mine = take()))
			parse_unlocked(mine);
		else
			pthread_cond_wait(&parsed, &lock);
	}
	pthread_mutex_unlock(&lock);

	for (i = 0; i < b->n; i++)
		handler(&b->line[i]);
	chunk[b->chunk].refs--;
	pthread_mutex_lock(&lock);
	b->done = 0;
	handed++;
	pthread_mutex_unlock(&lock);
	return 1;
}

static void queue_open(void)
{
	if (!open_batch)
		return;
	open_batch = NULL;
	pthread_mutex_lock(&lock);
	queued++;
	pthread_cond_signal(&work);
	pthread_mutex_unlock(&lock);
}

static void drain(void)
{
	queue_open();
	while (hand_over())
		;
}

/* The next line's entry, in the open batch of chunk c (a new one when it
 * is full or of another chunk). */
static struct sp_line *next_entry(int c)
{
	struct batch *b = open_batch;

	if (b && (b->n == BATCH || b->chunk != c)) {
		queue_open();
		b = NULL;
	}
	if (!b) {
		/* the ring's slots: queued batches and this one */
		while (queued - handed >= NBATCH)
			hand_over();
		b = open_batch = ring[queued % NBATCH];
		b->chunk = c;
		b->n = 0;
		b->done = 0;
		chunk[c].refs++;
	}
	return &b->line[b->n++];
}

/* ---- reading and splitting ---- */

/* The first newline or carriage return in [p, end), or end: the line
 * split's one scan of the input. */
static const char *eol(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');

	for (; end - p >= 16; p += 16) {
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)p);
		int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(c, nl),
						       _mm_cmpeq_epi8(c, cr)));

		if (m)
			return p + __builtin_ctz((unsigned)m);
	}
#endif
	for (; p < end; p++)
		if (*p == '\n' || *p == '\r')
			return p;
	return end;
}

/* A refusal of the line at p, whose text is shown up to its newline or
 * end. */
static void refusal(struct sp_line *s, enum sp_what what, const char *p,
		    const char *end, uint64_t off)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	s->what = what;
	s->p = p;
	s->len = (size_t)((nl ? nl : end) - p);
	s->off = off;
}

/*
 * The complete lines of chunk c's buf[start, end), which starts at input
 * byte offset base + start, and at the end of the input (eof) the last
 * one too, become entries. *skip says that the rest of a refused line is
 * still to be dropped. Returns where the partial line left for the next
 * read starts.
 */
static size_t split(int c, size_t start, size_t end, uint64_t base, int eof,
		    int *skip)
{
	const char *buf = chunk[c].buf;
	const char *p = buf + start, *e = buf + end, *q, *next;
	struct sp_line *s;
	int bare;

	while (p < e) {
		if (*skip) {
			if (!(q = memchr(p, '\n', (size_t)(e - p))))
				return end;
			*skip = 0;
			p = q + 1;
			continue;
		}
		q = eol(p, e);
		if (q == e || (*q == '\r' && q + 1 == e)) {
			if (!eof)
				break; /* more of the line is to come */
			next = e; /* the last line, without a newline */
		} else {
			next = q + 1 + (*q == '\r' && q[1] == '\n');
		}
		/* a CR that is not the line's end; the rest of the line, up
		 * to its newline, is dropped with it */
		bare = next < e && next == q + 1 && *q == '\r';
		s = next_entry(c);
		if ((size_t)(q - p) > SP_MAX_LINE) {
			refusal(s, SP_TOO_LONG, p, q, base + (uint64_t)(p - buf));
		} else if (bare) {
			refusal(s, SP_BARE_CR, p, e, base + (uint64_t)(q - buf));
		} else {
			s->what = SP_LINE;
			s->p = p;
			s->len = (size_t)(q - p);
		}
		*skip = bare;
		p = next;
	}
	return (size_t)(p - buf);
}

void sp_run(int fd, const char *name, const char *head, size_t nhead,
	    int threads, sp_line_fn *fn)
{
	size_t start = 0, end = nhead;
	uint64_t base = 0; /* the input byte offset of the chunk's buf[0] */
	int c = 0, skip = 0, i;

	in_name = name;
	handler = fn;
	for (i = 0; i < CHUNKS; i++)
		chunk[i].buf = xmalloc(CHUNK_CAP);
	for (i = 0; i < NBATCH; i++)
		ring[i] = xcalloc(1, sizeof(*ring[i]));
	if (nhead > CHUNK_CAP)
		die(MT_EXIT_SYSTEM, "%s: internal error: a head of %zu bytes",
		    name, nhead);
	memcpy(chunk[0].buf, head, nhead);
	start_workers(threads - 1);

	for (;;) {
		size_t got;

		if (end == CHUNK_CAP && start == 0) {
			/* a full buffer and no line end: refused in its place,
			 * before the buffer is read into again */
			struct sp_line s;

			drain();
			refusal(&s, SP_TOO_LONG, chunk[c].buf, chunk[c].buf + end, base);
			fn(&s);
			skip = 1;
			base += end;
			end = 0;
		} else if (start && CHUNK_CAP - end < CHUNK_CAP / 4) {
			/* the partial line moves to the next buffer, once all
			 * of that buffer's lines are handed over */
			int k = (c + 1) % CHUNKS;

			queue_open();
			while (chunk[k].refs)
				hand_over();
			memcpy(chunk[k].buf, chunk[c].buf + start, end - start);
			end -= start;
			base += start;
			start = 0;
			c = k;
		}
		got = read_or_die(fd, chunk[c].buf + end, CHUNK_CAP - end, in_name);
		end += got;
		start = split(c, start, end, base, got == 0, &skip);
		if (got == 0)
			break;
	}
	drain();
	stop_workers();
	for (i = 0; i < CHUNKS; i++)
		free(chunk[i].buf);
	for (i = 0; i < NBATCH; i++)
		free(ring[i]);
}
