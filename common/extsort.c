/*
 * The external sort (extsort.h): runs sorted in memory, spilled to one
 * unlinked temporary file, merged fanin at a time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "extsort.h"
#include "banned.h"

struct mt_extsort_run {
	uint64_t off, n; /* in records, in the file */
};

struct mt_extsort_cursor {
	uint64_t off, left; /* in records, in the file */
	unsigned char *buf;
	size_t pos, n;
};

int mt_extsort_init(struct mt_extsort *s, size_t size, mt_extsort_cmp cmp,
		    size_t run, unsigned fanin)
{
	memset(s, 0, sizeof(*s));
	s->size = size;
	s->run = run;
	s->fanin = fanin;
	s->cmp = cmp;
	s->fd = -1;
	if (!size || !run || fanin < 2 || !cmp || run > SIZE_MAX / size)
		return s->err = MT_EINVAL;
	return 0;
}

void mt_extsort_release(struct mt_extsort *s)
{
	free(s->buf);
	free(s->runs);
	free(s->cur);
	free(s->cbuf);
	if (s->fd >= 0)
		close(s->fd);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

static int fail(struct mt_extsort *s, int err)
{
	return s->err = err;
}

/* The file, made and unlinked at once: 0, MT_ENOMEM or MT_EIO. */
static int file_open(struct mt_extsort *s)
{
	const char *dir = getenv("TMPDIR");
	static const char name[] = "/mt-sort.XXXXXX";
	size_t len;
	char *path;
	int e;

	if (!dir || !*dir)
		dir = "/tmp";
	len = strlen(dir);
	if (!(path = malloc(len + sizeof(name))))
		return fail(s, MT_ENOMEM);
	memcpy(path, dir, len);
	memcpy(path + len, name, sizeof(name));
	s->fd = mkstemp(path);
	e = errno;
	if (s->fd >= 0)
		unlink(path);
	free(path);
	errno = e;
	return s->fd < 0 ? fail(s, MT_EIO) : 0;
}

/* n records at record at of the file, written (wr) or read, all of them. */
static int file_io(struct mt_extsort *s, int wr, void *p, size_t n,
		   uint64_t at)
{
	unsigned char *b = p;
	size_t len = n * s->size;
	off_t o = (off_t)(at * s->size);

	while (len) {
		ssize_t k = wr ? pwrite(s->fd, b, len, o) : pread(s->fd, b, len, o);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!k)
				errno = EIO;
			return fail(s, MT_EIO);
		}
		b += k;
		len -= (size_t)k;
		o += k;
	}
	return 0;
}

static int add_run(struct mt_extsort *s, uint64_t off, uint64_t n)
{
	if (mt_grow(&s->runs, &s->runs_cap, s->nruns + 1, sizeof(*s->runs)))
		return fail(s, MT_ENOMEM);
	s->runs[s->nruns].off = off;
	s->runs[s->nruns++].n = n;
	return 0;
}

/* Sort the run in memory and write it at the end of the file. */
static int spill(struct mt_extsort *s)
{
	int err;

	if (!s->n)
		return 0;
	if (s->fd < 0 && (err = file_open(s)))
		return err;
	qsort(s->buf, s->n, s->size, s->cmp);
	if ((err = file_io(s, 1, s->buf, s->n, s->end)) ||
	    (err = add_run(s, s->end, s->n)))
		return err;
	s->end += s->n;
	s->n = 0;
	return 0;
}

int mt_extsort_add(struct mt_extsort *s, const void *rec)
{
	int err;

	if (s->err)
		return s->err;
	if (s->sorted)
		return fail(s, MT_EINVAL);
	if (!s->buf && !(s->buf = malloc(s->run * s->size)))
		return fail(s, MT_ENOMEM);
	if (s->n == s->run && (err = spill(s)))
		return err;
	memcpy(s->buf + s->n * s->size, rec, s->size);
	s->n++;
	s->count++;
	return 0;
}

/* ---- merging ---- */

static void cursors_start(struct mt_extsort *s, const struct mt_extsort_run *r,
			  size_t k)
{
	size_t i;

	for (i = 0; i < k; i++) {
		s->cur[i].off = r[i].off;
		s->cur[i].left = r[i].n;
		s->cur[i].pos = s->cur[i].n = 0;
	}
}

/* The cursor's next record, or NULL (*err set on failure) at its end. */
static const void *cursor_peek(struct mt_extsort *s,
			       struct mt_extsort_cursor *c, int *err)
{
	if (c->pos == c->n) {
		size_t k = c->left < s->cbuf_recs ? (size_t)c->left : s->cbuf_recs;

		if (!k)
			return NULL;
		if ((*err = file_io(s, 0, c->buf, k, c->off)))
			return NULL;
		c->off += k;
		c->left -= k;
		c->pos = 0;
		c->n = k;
	}
	return c->buf + c->pos * s->size;
}

/* Of k cursors, the one whose record comes first (the lowest on ties), in
 * *best; 1, 0 when all are at their end, or an error. */
static int pick(struct mt_extsort *s, size_t k, size_t *best)
{
	const void *b = NULL, *r;
	size_t i;
	int err = 0;

	for (i = 0; i < k; i++) {
		r = cursor_peek(s, &s->cur[i], &err);
		if (err)
			return err;
		if (r && (!b || s->cmp(r, b) < 0)) {
			b = r;
			*best = i;
		}
	}
	return b != NULL;
}

/* Merge runs [from, to) of old into one at the end of the file. */
static int merge_one(struct mt_extsort *s, const struct mt_extsort_run *old,
		     size_t from, size_t to)
{
	uint64_t start = s->end;
	size_t best = 0, nout = 0;
	unsigned char *out = s->buf; /* free while merging: the output's */
	int got, err;

	cursors_start(s, old + from, to - from);
	while ((got = pick(s, to - from, &best)) > 0) {
		struct mt_extsort_cursor *c = &s->cur[best];

		memcpy(out + nout * s->size, c->buf + c->pos * s->size, s->size);
		c->pos++;
		if (++nout == s->cbuf_recs) {
			if ((err = file_io(s, 1, out, nout, s->end)))
				return err;
			s->end += nout;
			nout = 0;
		}
	}
	if (got < 0)
		return got;
	if (nout && (err = file_io(s, 1, out, nout, s->end)))
		return err;
	s->end += nout;
	return add_run(s, start, s->end - start);
}

/*
 * Merge passes until at most fanin runs are left. Each pass appends its
 * runs to the file (which grows to a few times the records: the space of
 * earlier passes is not reused, to keep this simple and safe).
 */
static int merge_down(struct mt_extsort *s)
{
	while (s->nruns > s->fanin) {
		struct mt_extsort_run *old = s->runs;
		size_t nold = s->nruns, i;
		int err = 0;

		s->runs = NULL;
		s->nruns = s->runs_cap = 0;
		for (i = 0; !err && i < nold; i += s->fanin)
			err = merge_one(s, old, i,
					i + s->fanin < nold ? i + s->fanin : nold);
		free(old);
		if (err)
			return err;
	}
	return 0;
}

int mt_extsort_sort(struct mt_extsort *s)
{
	size_t i;
	int err;

	if (s->err)
		return s->err;
	if (s->sorted)
		return 0;
	s->sorted = 1;
	if (s->fd < 0) {
		/* one run: sorted in memory, handed back from there */
		if (s->n)
			qsort(s->buf, s->n, s->size, s->cmp);
		return 0;
	}
	if ((err = spill(s)))
		return err;
	s->cbuf_recs = MT_EXTSORT_BUF / s->size ? MT_EXTSORT_BUF / s->size : 1;
	if (s->cbuf_recs > s->run)
		s->cbuf_recs = s->run; /* buf holds a merge's output */
	s->cur = calloc(s->fanin, sizeof(*s->cur));
	s->cbuf = malloc(s->fanin * s->cbuf_recs * s->size);
	if (!s->cur || !s->cbuf)
		return fail(s, MT_ENOMEM);
	for (i = 0; i < s->fanin; i++)
		s->cur[i].buf = s->cbuf + i * s->cbuf_recs * s->size;
	if ((err = merge_down(s)))
		return err;
	cursors_start(s, s->runs, s->nruns);
	s->last = SIZE_MAX;
	return 0;
}

int mt_extsort_next(struct mt_extsort *s, const void **rec)
{
	int got;

	if (s->err)
		return s->err;
	if (!s->sorted)
		return fail(s, MT_EINVAL);
	if (s->fd < 0) {
		if (s->pos == s->n)
			return 0;
		*rec = s->buf + s->pos++ * s->size;
		return 1;
	}
	/* the record handed back last stays in its buffer until now */
	if (s->last != SIZE_MAX)
		s->cur[s->last].pos++;
	s->last = SIZE_MAX;
	if ((got = pick(s, s->nruns, &s->last)) <= 0) {
		s->last = SIZE_MAX;
		return got;
	}
	*rec = s->cur[s->last].buf + s->cur[s->last].pos * s->size;
	return 1;
}
