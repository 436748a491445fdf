#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "kind.h"
#include "stream.h"
#include "wire.h"
#include "banned.h"

#define READ_CHUNK (256 * 1024)
#define WRITE_CHUNK (256 * 1024)

struct mt_strtab_ent {
	uint32_t id; /* 0: empty slot */
	uint32_t len;
	char *p;
};

/* ---- reading ---- */

static ssize_t read_fd(void *ctx, void *buf, size_t n)
{
	struct mt_reader *r = ctx;
	ssize_t got;

	do
		got = read(r->fd, buf, n);
	while (got < 0 && errno == EINTR);
	return got < 0 ? MT_EIO : got;
}

static ssize_t read_mem(void *ctx, void *buf, size_t n)
{
	struct mt_reader *r = ctx;
	size_t left = r->mem_len - r->mem_pos;

	if (n > left)
		n = left;
	if (!n)
		return 0; /* mem may be NULL for an empty input */
	memcpy(buf, r->mem + r->mem_pos, n);
	r->mem_pos += n;
	return (ssize_t)n;
}

static void reader_zero(struct mt_reader *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

int mt_reader_init_fn(struct mt_reader *r, mt_read_fn fn, void *ctx,
		      const void *prefix, size_t prefix_len)
{
	reader_zero(r);
	r->read = fn;
	r->ctx = ctx;
	if (prefix_len) {
		r->cap = prefix_len > READ_CHUNK ? prefix_len : READ_CHUNK;
		r->buf = malloc(r->cap);
		if (!r->buf)
			return MT_ENOMEM;
		memcpy(r->buf, prefix, prefix_len);
		r->end = prefix_len;
	}
	return 0;
}

void mt_pipe_grow(int fd)
{
	struct stat sb;

	if (!fstat(fd, &sb) && S_ISFIFO(sb.st_mode) &&
	    fcntl(fd, F_GETPIPE_SZ) < MT_PIPE_BYTES)
		(void)fcntl(fd, F_SETPIPE_SZ, MT_PIPE_BYTES);
}

int mt_reader_init_fd(struct mt_reader *r, int fd, const void *prefix,
		      size_t prefix_len)
{
	int err = mt_reader_init_fn(r, read_fd, NULL, prefix, prefix_len);

	mt_pipe_grow(fd);
	r->ctx = r;
	r->fd = fd;
	return err;
}

void mt_reader_init_mem(struct mt_reader *r, const void *data, size_t len)
{
	reader_zero(r);
	r->read = read_mem;
	r->ctx = r;
	r->mem = data;
	r->mem_len = len;
}

void mt_reader_release(struct mt_reader *r)
{
	size_t i;

	for (i = 0; i < r->nslots; i++)
		free(r->strs[i].p);
	free(r->strs);
	free(r->buf);
	free(r->frames);
	reader_zero(r);
}

/* Make n bytes available at buf[start]. Returns 1, 0 if the input ends
 * first (with fewer bytes available), or an error. */
static int fill(struct mt_reader *r, size_t n)
{
	while (r->end - r->start < n) {
		ssize_t got;

		if (r->eof)
			return 0;
		if (r->cap - r->start < n || r->cap - r->end < READ_CHUNK / 4) {
			/* slide down, grow if the record needs it */
			size_t have = r->end - r->start;
			size_t cap = r->cap ? r->cap : READ_CHUNK;

			while (cap < n + READ_CHUNK / 4)
				cap *= 2;
			if (cap != r->cap) {
				unsigned char *b = malloc(cap);

				if (!b)
					return MT_ENOMEM;
				if (have)
					memcpy(b, r->buf + r->start, have);
				free(r->buf);
				r->buf = b;
				r->cap = cap;
			} else if (r->start) {
				memmove(r->buf, r->buf + r->start, have);
			}
			r->buf_offset += r->start;
			r->start = 0;
			r->end = have;
		}
		got = r->read(r->ctx, r->buf + r->end, r->cap - r->end);
		if (got < 0)
			return (int)got;
		if (got == 0)
			r->eof = 1;
		r->end += (size_t)got;
	}
	return 1;
}

static struct mt_strtab_ent *strtab_find(const struct mt_reader *r, uint32_t id)
{
	size_t i;

	if (!r->nslots || !id)
		return NULL;
	for (i = (id * 2654435761u) & (r->nslots - 1); r->strs[i].id;
	     i = (i + 1) & (r->nslots - 1))
		if (r->strs[i].id == id)
			return &r->strs[i];
	return NULL;
}

static int strtab_set(struct mt_reader *r, uint32_t id, const unsigned char *p,
		      uint32_t len)
{
	struct mt_strtab_ent *e = strtab_find(r, id);
	char *copy = malloc((size_t)len + 1);
	size_t i;

	if (!copy)
		return MT_ENOMEM;
	memcpy(copy, p, len);
	copy[len] = '\0';
	if (e) {
		free(e->p);
		e->p = copy;
		e->len = len;
		return 0;
	}
	if ((r->nstrs + 1) * 2 > r->nslots) {
		size_t n = r->nslots ? r->nslots * 2 : 1024;
		struct mt_strtab_ent *t = calloc(n, sizeof(*t));

		if (!t) {
			free(copy);
			return MT_ENOMEM;
		}
		for (i = 0; i < r->nslots; i++) {
			size_t j;

			if (!r->strs[i].id)
				continue;
			for (j = (r->strs[i].id * 2654435761u) & (n - 1); t[j].id;
			     j = (j + 1) & (n - 1))
				;
			t[j] = r->strs[i];
		}
		free(r->strs);
		r->strs = t;
		r->nslots = n;
	}
	for (i = (id * 2654435761u) & (r->nslots - 1); r->strs[i].id;
	     i = (i + 1) & (r->nslots - 1))
		;
	r->strs[i].id = id;
	r->strs[i].len = len;
	r->strs[i].p = copy;
	r->nstrs++;
	return 0;
}

const char *mt_reader_str(const struct mt_reader *r, uint32_t id, size_t *len)
{
	const struct mt_strtab_ent *e = strtab_find(r, id);

	if (!e)
		return NULL;
	if (len)
		*len = e->len;
	return e->p;
}

static int check_sid(const struct mt_reader *r, uint32_t id)
{
	return id == 0 || strtab_find(r, id) ? 0 : MT_EUNDEFSTR;
}

static void get_loc(const unsigned char *p, struct mt_loc *l)
{
	l->ip = mt_get64(p);
	l->off = mt_get64(p + 8);
	l->sym = mt_get32(p + 16);
	l->dso = mt_get32(p + 20);
}

static int check_loc(const struct mt_reader *r, const struct mt_loc *l)
{
	int err = check_sid(r, l->sym);

	return err ? err : check_sid(r, l->dso);
}

const char *mt_reader_looks_like(const struct mt_reader *r)
{
	size_t n = r->end - r->start;

	if (!n)
		return r->eof ? "empty" : NULL;
	return mt_kind_phrase(mt_kind_of(r->buf + r->start, n));
}

static int read_header(struct mt_reader *r)
{
	int got = fill(r, MT_HEADER_LEN);
	const unsigned char *p;

	r->err_offset = 0;
	if (got < 0)
		return got;
	p = r->buf + r->start;
	if (r->end - r->start < MT_MAGIC_LEN ||
	    memcmp(p, MT_MAGIC, MT_MAGIC_LEN)) {
		/* a prefix of the magic that just ends is truncation */
		size_t have = r->end - r->start;

		if (have < MT_MAGIC_LEN && !memcmp(p, MT_MAGIC, have) && have)
			return MT_ETRUNCATED;
		return MT_EMAGIC;
	}
	if (!got)
		return MT_ETRUNCATED;
	r->major = mt_get16(p + 8);
	r->minor = mt_get16(p + 10);
	if (r->major != MT_VERSION_MAJOR)
		return MT_EVERSION;
	r->start += MT_HEADER_LEN;
	r->started = 1;
	return 0;
}

static int decode_end(struct mt_reader *r, struct mt_record *rec,
		      const unsigned char *b, size_t len)
{
	if (len < MT_SIZE_END)
		return MT_ECORRUPT;
	rec->u.end.records = mt_get64(b);
	rec->u.end.bytes = mt_get64(b + 8);
	if (rec->u.end.records != r->nrecords ||
	    rec->u.end.bytes != rec->offset)
		return MT_ECOUNT;
	return 0;
}

static int decode_string(struct mt_reader *r, struct mt_record *rec,
			 const unsigned char *b, size_t len)
{
	int err;

	if (len < MT_SIZE_STRING)
		return MT_ECORRUPT;
	rec->u.string.id = mt_get32(b);
	rec->u.string.len = mt_get32(b + 4);
	if (rec->u.string.id == 0 || rec->u.string.len > len - 8 ||
	    memchr(b + 8, 0, rec->u.string.len))
		return MT_ECORRUPT;
	err = strtab_set(r, rec->u.string.id, b + 8, rec->u.string.len);
	rec->u.string.p = mt_reader_str(r, rec->u.string.id, NULL);
	return err;
}

static int decode_thread(struct mt_reader *r, struct mt_thread *th,
			 const unsigned char *b, size_t len)
{
	if (len < MT_SIZE_THREAD)
		return MT_ECORRUPT;
	th->pid = mt_get32(b);
	th->tid = mt_get32(b + 4);
	th->comm = mt_get32(b + 8);
	th->time = mt_get64(b + 12);
	return check_sid(r, th->comm);
}

static int decode_branch(struct mt_reader *r, struct mt_branch *br,
			 const unsigned char *b, size_t len)
{
	int err;

	if (len < MT_SIZE_BRANCH)
		return MT_ECORRUPT;
	br->time = mt_get64(b);
	br->pid = mt_get32(b + 8);
	br->tid = mt_get32(b + 12);
	br->cpu = mt_get32(b + 16);
	br->kind = b[20];
	br->flags = mt_get16(b + 22);
	get_loc(b + 24, &br->from);
	get_loc(b + 48, &br->to);
	if ((err = check_loc(r, &br->from)))
		return err;
	return check_loc(r, &br->to);
}

static int decode_error(struct mt_reader *r, struct mt_error *e,
			const unsigned char *b, size_t len)
{
	if (len < MT_SIZE_ERROR)
		return MT_ECORRUPT;
	e->time = mt_get64(b);
	e->pid = mt_get32(b + 8);
	e->tid = mt_get32(b + 12);
	e->cpu = mt_get32(b + 16);
	e->class = b[20];
	e->ip = mt_get64(b + 24);
	e->code = mt_get32(b + 32);
	e->type = mt_get32(b + 36);
	e->count = mt_get64(b + 40);
	e->msg = mt_get32(b + 48);
	return check_sid(r, e->msg);
}

static int decode_mark(struct mt_reader *r, struct mt_mark *m,
		       const unsigned char *b, size_t len)
{
	int err;

	if (len < MT_SIZE_MARK)
		return MT_ECORRUPT;
	m->time = mt_get64(b);
	m->pid = mt_get32(b + 8);
	m->tid = mt_get32(b + 12);
	m->cpu = mt_get32(b + 16);
	m->kind = b[20];
	m->flags = mt_get16(b + 22);
	m->value = mt_get64(b + 24);
	m->ip = mt_get64(b + 32);
	m->name = mt_get32(b + 40);
	m->text = mt_get32(b + 44);
	m->start = m->kind == MT_MARK_REGION && len >= MT_SIZE_MARK_REGION ? mt_get64(b + 48)
									 : MT_NONE64;
	if ((err = check_sid(r, m->name)))
		return err;
	return check_sid(r, m->text);
}

static int decode_sample(struct mt_reader *r, struct mt_sample *s,
			 const unsigned char *b, size_t len)
{
	uint16_t fsize;
	uint32_t i;
	int err;

	if (len < MT_SIZE_SAMPLE)
		return MT_ECORRUPT;
	s->time = mt_get64(b);
	s->pid = mt_get32(b + 8);
	s->tid = mt_get32(b + 12);
	s->cpu = mt_get32(b + 16);
	s->flags = mt_get16(b + 20);
	fsize = mt_get16(b + 22);
	s->period = mt_get64(b + 24);
	s->event = mt_get32(b + 32);
	s->nframes = mt_get32(b + 36);
	if (fsize < MT_SIZE_FRAME ||
	    s->nframes > (len - MT_SIZE_SAMPLE) / fsize)
		return MT_ECORRUPT;
	if ((err = check_sid(r, s->event)))
		return err;
	if (s->nframes > r->frames_cap) {
		struct mt_loc *f = realloc(r->frames,
					   s->nframes * sizeof(*f));
		if (!f)
			return MT_ENOMEM;
		r->frames = f;
		r->frames_cap = s->nframes;
	}
	for (i = 0; i < s->nframes; i++) {
		get_loc(b + MT_SIZE_SAMPLE + (size_t)i * fsize,
			&r->frames[i]);
		if ((err = check_loc(r, &r->frames[i])))
			return err;
	}
	s->frames = r->frames;
	return 0;
}

static int decode_span(struct mt_reader *r, struct mt_span *s,
		       const unsigned char *b, size_t len)
{
	int err;

	if (len < MT_SIZE_SPAN)
		return MT_ECORRUPT;
	s->start = mt_get64(b);
	s->end = mt_get64(b + 8);
	s->pid = mt_get32(b + 16);
	s->tid = mt_get32(b + 20);
	s->depth = (int32_t)mt_get32(b + 24);
	s->kind = b[28];
	s->flags = mt_get16(b + 30);
	s->address = mt_get64(b + 32);
	s->name = mt_get32(b + 40);
	s->dso = mt_get32(b + 44);
	if (s->end < s->start)
		return MT_ECORRUPT;
	if ((err = check_sid(r, s->name)))
		return err;
	return check_sid(r, s->dso);
}

static int decode_meta(struct mt_reader *r, struct mt_meta *m,
		       const unsigned char *b, size_t len)
{
	int err;

	if (len < MT_SIZE_META)
		return MT_ECORRUPT;
	m->key = mt_get32(b);
	m->value = mt_get32(b + 4);
	if ((err = check_sid(r, m->key)))
		return err;
	return check_sid(r, m->value);
}

/* The body of a record of rec->type: a function per type, each checking
 * the length before it reads. */
static int decode(struct mt_reader *r, struct mt_record *rec,
		  const unsigned char *b, size_t len)
{
	switch (rec->type) {
	case MT_REC_END:
		return decode_end(r, rec, b, len);
	case MT_REC_STRING:
		return decode_string(r, rec, b, len);
	case MT_REC_THREAD:
		return decode_thread(r, &rec->u.thread, b, len);
	case MT_REC_BRANCH:
		return decode_branch(r, &rec->u.branch, b, len);
	case MT_REC_ERROR:
		return decode_error(r, &rec->u.error, b, len);
	case MT_REC_MARK:
		return decode_mark(r, &rec->u.mark, b, len);
	case MT_REC_SAMPLE:
		return decode_sample(r, &rec->u.sample, b, len);
	case MT_REC_SPAN:
		return decode_span(r, &rec->u.span, b, len);
	case MT_REC_META:
		return decode_meta(r, &rec->u.meta, b, len);
	default:
		return rec->type >= MT_REC_CRITICAL ? MT_ECRITICAL : 0;
	}
}

int mt_reader_next(struct mt_reader *r, struct mt_record *rec)
{
	const unsigned char *p;
	uint32_t len;
	int got, err;

	if (r->done)
		return 0;
	if (!r->started && (err = read_header(r)))
		return err;
	rec->offset = r->err_offset = r->buf_offset + r->start;
	got = fill(r, MT_REC_HDR);
	if (got <= 0)
		return got < 0 ? got : MT_ETRUNCATED;
	p = r->buf + r->start;
	len = mt_get24(p + 1);
	got = fill(r, MT_REC_HDR + (size_t)len);
	if (got <= 0)
		return got < 0 ? got : MT_ETRUNCATED;
	p = r->buf + r->start;
	rec->type = p[0];
	rec->raw = p;
	rec->raw_len = MT_REC_HDR + (size_t)len;
	err = decode(r, rec, p + MT_REC_HDR, len);
	if (err)
		return err;
	r->start += rec->raw_len;
	if (rec->type == MT_REC_END) {
		/* END must be last: look for one more byte. fill() may move
		 * the buffer, so keep END's bytes (its v1 size) aside. */
		rec->raw_len = MT_REC_HDR + MT_SIZE_END;
		memcpy(r->end_raw, p, rec->raw_len);
		mt_put24(r->end_raw + 1, MT_SIZE_END);
		rec->raw = r->end_raw;
		r->err_offset = rec->offset + MT_REC_HDR + len;
		got = fill(r, 1);
		if (got < 0)
			return got;
		if (got > 0)
			return MT_ETRAILING;
		r->err_offset = rec->offset;
		r->done = 1;
	}
	r->nrecords++;
	return 1;
}

/* ---- writing ---- */

static int write_fd(void *ctx, const void *buf, size_t n)
{
	struct mt_writer *w = ctx;
	const char *p = buf;

	while (n) {
		ssize_t done = write(w->fd, p, n);

		if (done < 0) {
			if (errno == EINTR)
				continue;
			return errno == EPIPE ? MT_EPIPE : MT_EIO;
		}
		p += done;
		n -= (size_t)done;
	}
	return 0;
}

int mt_writer_init_fn(struct mt_writer *w, mt_write_fn fn, void *ctx)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	w->write = fn;
	w->ctx = ctx;
	mt_intern_init(&w->strings);
	w->cap = WRITE_CHUNK;
	w->buf = malloc(w->cap);
	if (!w->buf)
		return w->err = MT_ENOMEM;
	memcpy(w->buf, MT_MAGIC, MT_MAGIC_LEN);
	mt_put16(w->buf + 8, MT_VERSION_MAJOR);
	mt_put16(w->buf + 10, MT_VERSION_MINOR);
	mt_put32(w->buf + 12, 0);
	w->len = MT_HEADER_LEN;
	return 0;
}

int mt_writer_init_fd(struct mt_writer *w, int fd)
{
	int err = mt_writer_init_fn(w, write_fd, w);

	mt_pipe_grow(fd);
	w->fd = fd;
	return err;
}

void mt_writer_release(struct mt_writer *w)
{
	free(w->buf);
	mt_intern_release(&w->strings);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

int mt_writer_flush(struct mt_writer *w)
{
	int err;

	if (w->err)
		return w->err;
	if (!w->len)
		return 0;
	err = w->write(w->ctx, w->buf, w->len);
	if (err)
		return w->err = err;
	w->offset += w->len;
	w->len = 0;
	return 0;
}

/* Room for a record with an L-byte body; returns a pointer to its body. */
static inline unsigned char *begin(struct mt_writer *w, unsigned type,
				   size_t body)
{
	size_t need = MT_REC_HDR + body;
	unsigned char *p;

	if (w->err)
		return NULL;
	if (body > MT_BODY_MAX) {
		w->err = MT_ETOOBIG;
		return NULL;
	}
	if (w->cap - w->len < need) {
		if (mt_writer_flush(w))
			return NULL;
		if (w->cap < need) {
			unsigned char *b = realloc(w->buf, need);

			if (!b) {
				w->err = MT_ENOMEM;
				return NULL;
			}
			w->buf = b;
			w->cap = need;
		}
	}
	p = w->buf + w->len;
	p[0] = (unsigned char)type;
	mt_put24(p + 1, (uint32_t)body);
	w->len += need;
	w->nrecords++;
	return p + MT_REC_HDR;
}

int mt_write_string(struct mt_writer *w, uint32_t id, const char *s, size_t len)
{
	unsigned char *b;

	if (!id || memchr(s, 0, len))
		return MT_EINVAL;
	if (len > MT_BODY_MAX - MT_SIZE_STRING)
		return w->err ? w->err : MT_ETOOBIG;
	b = begin(w, MT_REC_STRING, MT_SIZE_STRING + len);
	if (!b)
		return w->err;
	mt_put32(b, id);
	mt_put32(b + 4, (uint32_t)len);
	memcpy(b + 8, s, len);
	return 0;
}

int mt_writer_intern(struct mt_writer *w, const char *s, size_t len,
		     uint32_t *id)
{
	int is_new, err;

	*id = 0;
	if (w->err)
		return w->err;
	if (!len)
		return 0;
	if (len > MT_BODY_MAX - MT_SIZE_STRING)
		return MT_ETOOBIG;
	if (memchr(s, 0, len))
		return MT_EINVAL;
	err = mt_intern_get(&w->strings, s, len, id, &is_new);
	if (err)
		return w->err = err;
	return is_new ? mt_write_string(w, *id, s, len) : 0;
}

int mt_write_thread(struct mt_writer *w, const struct mt_thread *t)
{
	unsigned char *b = begin(w, MT_REC_THREAD, MT_SIZE_THREAD);

	if (!b)
		return w->err;
	mt_put32(b, t->pid);
	mt_put32(b + 4, t->tid);
	mt_put32(b + 8, t->comm);
	mt_put64(b + 12, t->time);
	return 0;
}

/* Little-endian stores: on a little-endian host one move each (the
 * writer's hot path is a BRANCH per input line); elsewhere byte by byte. */
static inline void put32(unsigned char *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 4);
#else
	mt_put32(p, v);
#endif
}

static inline void put64(unsigned char *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 8);
#else
	mt_put64(p, v);
#endif
}

static inline void put_loc(unsigned char *p, const struct mt_loc *l)
{
	put64(p, l->ip);
	put64(p + 8, l->off);
	put32(p + 16, l->sym);
	put32(p + 20, l->dso);
}

/* time, pid, tid, cpu, u8 kind, u8 0, u16 flags: the 24 bytes that open
 * BRANCH, ERROR and MARK */
static inline void put_head(unsigned char *b, uint64_t time, uint32_t pid,
			    uint32_t tid, uint32_t cpu, uint8_t kind,
			    uint16_t flags)
{
	put64(b, time);
	put32(b + 8, pid);
	put32(b + 12, tid);
	put32(b + 16, cpu);
	put32(b + 20, (uint32_t)kind | (uint32_t)flags << 16);
}

int mt_write_branch(struct mt_writer *w, const struct mt_branch *br)
{
	unsigned char *b = begin(w, MT_REC_BRANCH, MT_SIZE_BRANCH);

	if (!b)
		return w->err;
	put_head(b, br->time, br->pid, br->tid, br->cpu, br->kind, br->flags);
	put_loc(b + 24, &br->from);
	put_loc(b + 48, &br->to);
	return 0;
}

int mt_write_error(struct mt_writer *w, const struct mt_error *e)
{
	unsigned char *b = begin(w, MT_REC_ERROR, MT_SIZE_ERROR);

	if (!b)
		return w->err;
	put_head(b, e->time, e->pid, e->tid, e->cpu, e->class, 0);
	mt_put64(b + 24, e->ip);
	mt_put32(b + 32, e->code);
	mt_put32(b + 36, e->type);
	mt_put64(b + 40, e->count);
	mt_put32(b + 48, e->msg);
	return 0;
}

int mt_write_mark(struct mt_writer *w, const struct mt_mark *m)
{
	int region = m->kind == MT_MARK_REGION;
	unsigned char *b = begin(w, MT_REC_MARK, region ? MT_SIZE_MARK_REGION : MT_SIZE_MARK);

	if (!b)
		return w->err;
	put_head(b, m->time, m->pid, m->tid, m->cpu, m->kind, m->flags);
	mt_put64(b + 24, m->value);
	mt_put64(b + 32, m->ip);
	mt_put32(b + 40, m->name);
	mt_put32(b + 44, m->text);
	if (region)
		mt_put64(b + 48, m->start);
	return 0;
}

int mt_write_sample(struct mt_writer *w, const struct mt_sample *s)
{
	unsigned char *b;
	uint32_t i;

	if (s->nframes > (MT_BODY_MAX - MT_SIZE_SAMPLE) / MT_SIZE_FRAME)
		return w->err ? w->err : MT_ETOOBIG;
	b = begin(w, MT_REC_SAMPLE,
		  MT_SIZE_SAMPLE + (size_t)s->nframes * MT_SIZE_FRAME);
	if (!b)
		return w->err;
	mt_put64(b, s->time);
	mt_put32(b + 8, s->pid);
	mt_put32(b + 12, s->tid);
	mt_put32(b + 16, s->cpu);
	mt_put16(b + 20, s->flags);
	mt_put16(b + 22, MT_SIZE_FRAME);
	mt_put64(b + 24, s->period);
	mt_put32(b + 32, s->event);
	mt_put32(b + 36, s->nframes);
	for (i = 0; i < s->nframes; i++)
		put_loc(b + MT_SIZE_SAMPLE + (size_t)i * MT_SIZE_FRAME,
			&s->frames[i]);
	return 0;
}

int mt_write_span(struct mt_writer *w, const struct mt_span *s)
{
	unsigned char *b;

	if (s->end < s->start)
		return MT_EINVAL;
	b = begin(w, MT_REC_SPAN, MT_SIZE_SPAN);
	if (!b)
		return w->err;
	mt_put64(b, s->start);
	mt_put64(b + 8, s->end);
	mt_put32(b + 16, s->pid);
	mt_put32(b + 20, s->tid);
	mt_put32(b + 24, (uint32_t)s->depth);
	b[28] = s->kind;
	b[29] = 0;
	mt_put16(b + 30, s->flags);
	mt_put64(b + 32, s->address);
	mt_put32(b + 40, s->name);
	mt_put32(b + 44, s->dso);
	return 0;
}

int mt_write_meta(struct mt_writer *w, const struct mt_meta *m)
{
	unsigned char *b = begin(w, MT_REC_META, MT_SIZE_META);

	if (!b)
		return w->err;
	mt_put32(b, m->key);
	mt_put32(b + 4, m->value);
	return 0;
}

int mt_write_raw(struct mt_writer *w, const void *rec, size_t len)
{
	const unsigned char *r = rec;
	unsigned char *b;

	if (len < MT_REC_HDR || mt_get24(r + 1) != len - MT_REC_HDR)
		return MT_ECORRUPT;
	if (r[0] == MT_REC_END)
		return MT_EINVAL;
	b = begin(w, r[0], len - MT_REC_HDR);
	if (!b)
		return w->err;
	memcpy(b, r + MT_REC_HDR, len - MT_REC_HDR);
	return 0;
}

int mt_writer_finish(struct mt_writer *w)
{
	uint64_t at;
	unsigned char *b;

	if (w->finished)
		return MT_EINVAL;
	b = begin(w, MT_REC_END, MT_SIZE_END);
	if (!b)
		return w->err;
	/* begin() may have flushed: recompute where END starts */
	at = w->offset + w->len - MT_REC_HDR - MT_SIZE_END;
	mt_put64(b, w->nrecords - 1);
	mt_put64(b + 8, at);
	w->finished = 1;
	return mt_writer_flush(w);
}
