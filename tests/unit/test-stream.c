/*
 * Unit tests for the stream reader and writer (common/stream.h) against
 * docs/format.md: round trips of every record type, readers over memory and
 * over pipes, and forged input that must fail with an exact error code at an
 * exact byte offset.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "stream.h"
#include "unit.h"
#include "wire.h"
#include "banned.h"

/* ---- helpers: sinks, builders, readers ---- */

static int sink_buf(void *ctx, const void *p, size_t n)
{
	return mt_buf_add(ctx, p, n);
}

static void wopen(struct mt_writer *w, struct mt_buf *out)
{
	mt_buf_init(out);
	poison(w);
	CHECK_EQ(mt_writer_init_fn(w, sink_buf, out), 0);
}

static void wfinish(struct mt_writer *w)
{
	CHECK_EQ(mt_writer_finish(w), 0);
	mt_writer_release(w);
}

/* A stream assembled by hand: header, records, END with right counts. */
struct sb {
	struct mt_buf b;
	uint64_t n;
};

static void sb_header(struct sb *s, uint16_t major, uint16_t minor,
		      uint32_t flags)
{
	unsigned char h[MT_HEADER_LEN];

	memcpy(h, MT_MAGIC, MT_MAGIC_LEN);
	mt_put16(h + 8, major);
	mt_put16(h + 10, minor);
	mt_put32(h + 12, flags);
	mt_buf_init(&s->b);
	s->n = 0;
	CHECK_EQ(mt_buf_add(&s->b, h, sizeof(h)), 0);
}

static void sb_init(struct sb *s)
{
	sb_header(s, MT_VERSION_MAJOR, MT_VERSION_MINOR, 0);
}

/* Append a record; returns its offset. */
static uint64_t sb_rec(struct sb *s, unsigned type, const void *body,
		       size_t len)
{
	unsigned char h[MT_REC_HDR];
	uint64_t off = s->b.len;

	h[0] = (unsigned char)type;
	mt_put24(h + 1, (uint32_t)len);
	CHECK_EQ(mt_buf_add(&s->b, h, sizeof(h)), 0);
	CHECK_EQ(mt_buf_add(&s->b, body, len), 0);
	s->n++;
	return off;
}

static uint64_t sb_end_counts(struct sb *s, uint64_t records, uint64_t bytes)
{
	unsigned char body[MT_SIZE_END];

	mt_put64(body, records);
	mt_put64(body + 8, bytes);
	return sb_rec(s, MT_REC_END, body, sizeof(body));
}

static uint64_t sb_end(struct sb *s)
{
	return sb_end_counts(s, s->n, s->b.len);
}

static uint64_t sb_string(struct sb *s, uint32_t id, const char *p,
			  size_t len)
{
	unsigned char body[256];

	mt_put32(body, id);
	mt_put32(body + 4, (uint32_t)len);
	memcpy(body + 8, p, len);
	return sb_rec(s, MT_REC_STRING, body, 8 + len);
}

static void sb_release(struct sb *s)
{
	mt_buf_release(&s->b);
}

static int next(struct mt_reader *r, struct mt_record *rec)
{
	poison(rec);
	return mt_reader_next(r, rec);
}

/*
 * Read len bytes to the end; the read must fail with err at byte offset
 * off. Returns the number of records read before the error.
 */
static int expect_err_line(int line, const void *data, size_t len, int err,
			   uint64_t off)
{
	struct mt_reader r;
	struct mt_record rec;
	int got, n = 0;

	mt_reader_init_mem(&r, data, len);
	while ((got = next(&r, &rec)) == 1)
		n++;
	if (got != err || mt_reader_offset(&r) != off) {
		fprintf(stderr,
			"line %d: got %d (%s) at %llu, want %d (%s) at %llu\n",
			line, got, mt_strerror(got),
			(unsigned long long)mt_reader_offset(&r), err,
			mt_strerror(err), (unsigned long long)off);
		unit_case_failed = 1;
	}
	mt_reader_release(&r);
	return n;
}
#define expect_err(d, l, e, o) expect_err_line(__LINE__, d, l, e, o)

/* Read to the end; it must succeed. Returns the records read, END too. */
static int expect_ok_line(int line, const void *data, size_t len)
{
	struct mt_reader r;
	struct mt_record rec;
	int got, n = 0;

	mt_reader_init_mem(&r, data, len);
	while ((got = next(&r, &rec)) == 1)
		n++;
	if (got != 0) {
		fprintf(stderr, "line %d: got %d (%s) at %llu, want success\n",
			line, got, mt_strerror(got),
			(unsigned long long)mt_reader_offset(&r));
		unit_case_failed = 1;
	}
	mt_reader_release(&r);
	return n;
}
#define expect_ok(d, l) expect_ok_line(__LINE__, d, l)

/* A child process that writes data into a pipe chunk bytes at a time;
 * returns the read end. */
static int feed(const void *data, size_t len, size_t chunk, pid_t *pid)
{
	int fds[2];

	if (pipe(fds))
		return -1;
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0) {
		const char *p = data;

		close(fds[0]);
		while (len) {
			size_t n = len < chunk ? len : chunk;
			ssize_t done = write(fds[1], p, n);

			if (done < 0 && errno == EINTR)
				continue;
			if (done <= 0)
				_exit(1);
			p += done;
			len -= (size_t)done;
		}
		_exit(0);
	}
	close(fds[1]);
	return fds[0];
}

static void reap(pid_t pid)
{
	int st = 0;

	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Read exactly n bytes (fewer only at end of input). */
static size_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, (char *)buf + got, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	return got;
}

/* ---- record comparison ---- */

static void check_loc(const struct mt_loc *a, const struct mt_loc *b)
{
	CHECK_EQ(a->ip, b->ip);
	CHECK_EQ(a->off, b->off);
	CHECK_EQ(a->sym, b->sym);
	CHECK_EQ(a->dso, b->dso);
}

static void check_branch(const struct mt_branch *a, const struct mt_branch *b)
{
	CHECK_EQ(a->time, b->time);
	CHECK_EQ(a->pid, b->pid);
	CHECK_EQ(a->tid, b->tid);
	CHECK_EQ(a->cpu, b->cpu);
	CHECK_EQ(a->kind, b->kind);
	CHECK_EQ(a->flags, b->flags);
	check_loc(&a->from, &b->from);
	check_loc(&a->to, &b->to);
}

static void check_thread(const struct mt_thread *a, const struct mt_thread *b)
{
	CHECK_EQ(a->pid, b->pid);
	CHECK_EQ(a->tid, b->tid);
	CHECK_EQ(a->comm, b->comm);
	CHECK_EQ(a->time, b->time);
}

static void check_error(const struct mt_error *a, const struct mt_error *b)
{
	CHECK_EQ(a->time, b->time);
	CHECK_EQ(a->pid, b->pid);
	CHECK_EQ(a->tid, b->tid);
	CHECK_EQ(a->cpu, b->cpu);
	CHECK_EQ(a->class, b->class);
	CHECK_EQ(a->ip, b->ip);
	CHECK_EQ(a->code, b->code);
	CHECK_EQ(a->type, b->type);
	CHECK_EQ(a->count, b->count);
	CHECK_EQ(a->msg, b->msg);
}

static void check_mark(const struct mt_mark *a, const struct mt_mark *b)
{
	CHECK_EQ(a->time, b->time);
	CHECK_EQ(a->pid, b->pid);
	CHECK_EQ(a->tid, b->tid);
	CHECK_EQ(a->cpu, b->cpu);
	CHECK_EQ(a->kind, b->kind);
	CHECK_EQ(a->flags, b->flags);
	CHECK_EQ(a->value, b->value);
	CHECK_EQ(a->ip, b->ip);
	CHECK_EQ(a->name, b->name);
	CHECK_EQ(a->text, b->text);
	CHECK_EQ(a->start, b->start);
}

static void check_sample(const struct mt_sample *a, const struct mt_sample *b)
{
	uint32_t i;

	CHECK_EQ(a->time, b->time);
	CHECK_EQ(a->pid, b->pid);
	CHECK_EQ(a->tid, b->tid);
	CHECK_EQ(a->cpu, b->cpu);
	CHECK_EQ(a->flags, b->flags);
	CHECK_EQ(a->period, b->period);
	CHECK_EQ(a->event, b->event);
	CHECK_EQ(a->nframes, b->nframes);
	if (a->nframes != b->nframes)
		return;
	for (i = 0; i < a->nframes; i++)
		check_loc(&a->frames[i], &b->frames[i]);
}

static void check_span(const struct mt_span *a, const struct mt_span *b)
{
	CHECK_EQ(a->start, b->start);
	CHECK_EQ(a->end, b->end);
	CHECK_EQ(a->pid, b->pid);
	CHECK_EQ(a->tid, b->tid);
	CHECK_EQ(a->depth, b->depth);
	CHECK_EQ(a->kind, b->kind);
	CHECK_EQ(a->flags, b->flags);
	CHECK_EQ(a->address, b->address);
	CHECK_EQ(a->name, b->name);
	CHECK_EQ(a->dso, b->dso);
}

/* Compare the decoded fields of two records of the same type (u only). */
static void check_fields(const struct mt_record *a, const struct mt_record *b)
{
	CHECK_EQ(a->type, b->type);
	if (a->type != b->type)
		return;
	switch (a->type) {
	case MT_REC_END:
		CHECK_EQ(a->u.end.records, b->u.end.records);
		CHECK_EQ(a->u.end.bytes, b->u.end.bytes);
		break;
	case MT_REC_STRING:
		CHECK_EQ(a->u.string.id, b->u.string.id);
		CHECK_EQ(a->u.string.len, b->u.string.len);
		CHECK(!memcmp(a->u.string.p, b->u.string.p, a->u.string.len));
		break;
	case MT_REC_THREAD:
		check_thread(&a->u.thread, &b->u.thread);
		break;
	case MT_REC_BRANCH:
		check_branch(&a->u.branch, &b->u.branch);
		break;
	case MT_REC_ERROR:
		check_error(&a->u.error, &b->u.error);
		break;
	case MT_REC_MARK:
		check_mark(&a->u.mark, &b->u.mark);
		break;
	case MT_REC_SAMPLE:
		check_sample(&a->u.sample, &b->u.sample);
		break;
	case MT_REC_SPAN:
		check_span(&a->u.span, &b->u.span);
		break;
	case MT_REC_META:
		CHECK_EQ(a->u.meta.key, b->u.meta.key);
		CHECK_EQ(a->u.meta.value, b->u.meta.value);
		break;
	}
}

/* ---- round trips: a writer that remembers what it wrote ---- */

#define MAXWANT 256

struct want {
	struct mt_record rec; /* type, offset, u */
	const void *raw;      /* unknown types: the record as written */
	size_t raw_len;
};

struct rt {
	struct mt_writer w;
	struct mt_buf out;
	struct want want[MAXWANT];
	size_t n;
};

static void rt_open(struct rt *t)
{
	wopen(&t->w, &t->out);
	t->n = 0;
}

/* Note the next record; call before writing it. */
static struct mt_record *expect(struct rt *t, unsigned type)
{
	struct want *x = &t->want[t->n < MAXWANT - 1 ? t->n++ : t->n];

	memset(x, 0, sizeof(*x));
	x->rec.type = type;
	x->rec.offset = t->w.offset + t->w.len;
	return &x->rec;
}

static void put_string(struct rt *t, uint32_t id, const char *s, size_t len)
{
	struct mt_record *r = expect(t, MT_REC_STRING);

	r->u.string.id = id;
	r->u.string.len = (uint32_t)len;
	r->u.string.p = s;
	CHECK_EQ(mt_write_string(&t->w, id, s, len), 0);
}

static uint32_t put_intern(struct rt *t, const char *s)
{
	uint64_t off = t->w.offset + t->w.len, nrec = t->w.nrecords;
	uint32_t id = 0;

	CHECK_EQ(mt_writer_intern(&t->w, s, strlen(s), &id), 0);
	if (t->w.nrecords != nrec) {
		struct mt_record *r;

		CHECK_EQ(t->w.nrecords, nrec + 1);
		r = &t->want[t->n < MAXWANT - 1 ? t->n++ : t->n].rec;
		memset(r, 0, sizeof(*r));
		r->type = MT_REC_STRING;
		r->offset = off;
		r->u.string.id = id;
		r->u.string.len = (uint32_t)strlen(s);
		r->u.string.p = s;
	}
	return id;
}

static void put_thread(struct rt *t, const struct mt_thread *v)
{
	expect(t, MT_REC_THREAD)->u.thread = *v;
	CHECK_EQ(mt_write_thread(&t->w, v), 0);
}

static void put_branch(struct rt *t, const struct mt_branch *v)
{
	expect(t, MT_REC_BRANCH)->u.branch = *v;
	CHECK_EQ(mt_write_branch(&t->w, v), 0);
}

static void put_error(struct rt *t, const struct mt_error *v)
{
	expect(t, MT_REC_ERROR)->u.error = *v;
	CHECK_EQ(mt_write_error(&t->w, v), 0);
}

static void put_mark(struct rt *t, const struct mt_mark *v)
{
	expect(t, MT_REC_MARK)->u.mark = *v;
	CHECK_EQ(mt_write_mark(&t->w, v), 0);
}

static void put_sample(struct rt *t, const struct mt_sample *v)
{
	expect(t, MT_REC_SAMPLE)->u.sample = *v;
	CHECK_EQ(mt_write_sample(&t->w, v), 0);
}

static void put_span(struct rt *t, const struct mt_span *v)
{
	expect(t, MT_REC_SPAN)->u.span = *v;
	CHECK_EQ(mt_write_span(&t->w, v), 0);
}

static void put_meta(struct rt *t, const struct mt_meta *v)
{
	expect(t, MT_REC_META)->u.meta = *v;
	CHECK_EQ(mt_write_meta(&t->w, v), 0);
}

static void put_raw(struct rt *t, const void *raw, size_t len)
{
	expect(t, ((const unsigned char *)raw)[0]);
	t->want[t->n - 1].raw = raw;
	t->want[t->n - 1].raw_len = len;
	CHECK_EQ(mt_write_raw(&t->w, raw, len), 0);
}

static size_t body_size(const struct mt_record *r)
{
	switch (r->type) {
	case MT_REC_END: return MT_SIZE_END;
	case MT_REC_STRING: return MT_SIZE_STRING + r->u.string.len;
	case MT_REC_THREAD: return MT_SIZE_THREAD;
	case MT_REC_BRANCH: return MT_SIZE_BRANCH;
	case MT_REC_ERROR: return MT_SIZE_ERROR;
	case MT_REC_MARK:
		return r->u.mark.kind == MT_MARK_REGION ? MT_SIZE_MARK_REGION : MT_SIZE_MARK;
	case MT_REC_SAMPLE:
		return MT_SIZE_SAMPLE + (size_t)r->u.sample.nframes * MT_SIZE_FRAME;
	case MT_REC_SPAN: return MT_SIZE_SPAN;
	case MT_REC_META: return MT_SIZE_META;
	}
	return 0;
}

/* Check one record read against what was written. */
static void check_want(const struct mt_reader *r, const struct mt_record *got,
		       const struct want *w)
{
	CHECK_EQ(got->type, w->rec.type);
	CHECK_EQ(got->offset, w->rec.offset);
	CHECK_EQ(mt_reader_offset(r), w->rec.offset);
	if (got->type != w->rec.type)
		return;
	if (w->raw) {
		CHECK_EQ(got->raw_len, w->raw_len);
		if (got->raw_len == w->raw_len)
			CHECK(!memcmp(got->raw, w->raw, w->raw_len));
		return;
	}
	CHECK_EQ(got->raw_len, MT_REC_HDR + body_size(&w->rec));
	CHECK_EQ(got->raw[0], got->type);
	CHECK_EQ(mt_get24(got->raw + 1), got->raw_len - MT_REC_HDR);
	check_fields(got, &w->rec);
	if (got->type == MT_REC_STRING) {
		size_t len = 0;
		const char *p = mt_reader_str(r, got->u.string.id, &len);

		CHECK(p != NULL);
		CHECK(p == got->u.string.p);
		CHECK_EQ(len, w->rec.u.string.len);
		if (p && len == w->rec.u.string.len) {
			CHECK(!memcmp(p, w->rec.u.string.p, len));
			CHECK_EQ(p[len], 0);
		}
	}
}

/* Finish the stream and read it back: every record, then END, then 0. */
static void rt_check(struct rt *t)
{
	struct mt_reader r;
	struct mt_record rec;
	uint64_t end_at = t->w.offset + t->w.len;
	size_t i;

	CHECK(t->n < MAXWANT - 1);
	CHECK_EQ(t->w.nrecords, t->n);
	wfinish(&t->w);
	poison(&r);
	mt_reader_init_mem(&r, t->out.p, t->out.len);
	for (i = 0; i < t->n; i++) {
		int got = next(&r, &rec);

		CHECK_EQ(got, 1);
		if (got != 1) {
			fprintf(stderr, "record %zu: %s at %llu\n", i,
				mt_strerror(got),
				(unsigned long long)mt_reader_offset(&r));
			break;
		}
		check_want(&r, &rec, &t->want[i]);
	}
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_REC_END);
	CHECK_EQ(rec.offset, end_at);
	CHECK_EQ(rec.u.end.records, t->n);
	CHECK_EQ(rec.u.end.bytes, end_at);
	CHECK_EQ(rec.raw_len, MT_REC_HDR + MT_SIZE_END);
	CHECK_EQ(end_at + MT_REC_HDR + MT_SIZE_END, t->out.len);
	CHECK_EQ(next(&r, &rec), 0);
	CHECK_EQ(next(&r, &rec), 0);
	CHECK_EQ(r.major, 1);
	CHECK_EQ(r.minor, MT_VERSION_MINOR);
	mt_reader_release(&r);
	mt_buf_release(&t->out);
}

/* ---- round-trip cases ---- */

static struct rt rt; /* big: keep it off the stack */

static void test_roundtrip_types(void)
{
	static struct mt_loc frames1[1], frames1000[1000];
	uint32_t main_id, libc_id, ev_id, msg_id, key_id, val_id;
	unsigned k;
	size_t i;

	rt_open(&rt);
	key_id = put_intern(&rt, "source");
	val_id = put_intern(&rt, "perf-script");
	put_meta(&rt, &(struct mt_meta){ key_id, val_id });
	put_meta(&rt, &(struct mt_meta){ 0, 0 });
	main_id = put_intern(&rt, "main");
	libc_id = put_intern(&rt, "/lib/x86_64-linux-gnu/libc.so.6");
	put_thread(&rt, &(struct mt_thread){ 1234, 1235, main_id, 5000 });
	put_thread(&rt, &(struct mt_thread){ MT_NONE32, MT_NONE32, 0,
					      MT_NONE64 });
	for (k = 0; k < MT_BR_NKINDS; k++) {
		struct mt_branch b = {
			.time = 1000000000ull * k + 7,
			.pid = 1234,
			.tid = 1235 + k,
			.cpu = k % 3,
			.kind = (uint8_t)k,
			.flags = (uint16_t)(1u << (k % 9)),
			.from = { 0x401000 + k, k, main_id, libc_id },
			.to = { 0x7f0000000000ull + k, MT_NONE64, 0, libc_id },
		};
		put_branch(&rt, &b);
	}
	put_branch(&rt, &(struct mt_branch){ 0 });
	put_branch(&rt, &(struct mt_branch){
		.time = MT_NONE64, .pid = MT_NONE32, .tid = MT_NONE32,
		.cpu = MT_NONE32, .kind = MT_BR_NONE,
		.flags = MT_BF_BEGIN | MT_BF_END | MT_BF_NOFLAGS,
		.from = { 0, MT_NONE64, 0, 0 }, .to = { 0, MT_NONE64, 0, 0 } });
	msg_id = put_intern(&rt, "Overflow packet");
	put_error(&rt, &(struct mt_error){ 123456789, 1, 2, 3, MT_ERRC_DECODE,
					    0x401234, 7, 1, 0, msg_id });
	put_error(&rt, &(struct mt_error){ MT_NONE64, MT_NONE32, MT_NONE32,
					    MT_NONE32, MT_ERRC_LOST, 0, 8, 1,
					    4096, 0 });
	ev_id = put_intern(&rt, "cbr");
	put_mark(&rt, &(struct mt_mark){ 99, 1, 2, 3, MT_MARK_CBR, 0, 2400,
					  0x401000, ev_id, 0, MT_NONE64 });
	put_mark(&rt, &(struct mt_mark){ MT_NONE64, MT_NONE32, MT_NONE32,
					  MT_NONE32, MT_MARK_WALLCLOCK, 0,
					  1700000000000000000ull, 0, 0, 0, MT_NONE64 });
	/* 1.1: a region's start after the 1.0 body; its value signed */
	put_mark(&rt, &(struct mt_mark){ 5000, 1, 2, MT_NONE32, MT_MARK_REGION, 0,
					  (uint64_t)-42, 0x401000, ev_id, main_id, 1234 });
	put_mark(&rt, &(struct mt_mark){ 5000, 1, 2, MT_NONE32, MT_MARK_REGION, 0,
					  7, 0, ev_id, 0, MT_NONE64 });
	for (i = 0; i < 1000; i++)
		frames1000[i] = (struct mt_loc){ 0x400000 + i * 16,
						 i % 2 ? i : MT_NONE64,
						 i % 3 ? main_id : 0,
						 i % 5 ? libc_id : 0 };
	frames1[0] = (struct mt_loc){ 0x401111, 0x11, main_id, 0 };
	ev_id = put_intern(&rt, "cpu-clock");
	put_sample(&rt, &(struct mt_sample){ 5, 6, 7, 8, 0, 100000, ev_id, 0,
					      NULL });
	put_sample(&rt, &(struct mt_sample){ 5, 6, 7, 8, 0, 100000, ev_id, 1,
					      frames1 });
	put_sample(&rt, &(struct mt_sample){ 9, 6, 7, 8, 0, 0, 0, 1000,
					      frames1000 });
	put_span(&rt, &(struct mt_span){ 100, 200, 1, 2, 0, MT_SPAN_FUNCTION,
					  0, 0x401000, main_id, libc_id });
	put_span(&rt, &(struct mt_span){ 100, 100, 1, 2, 3, MT_SPAN_GAP,
					  MT_SF_INFERRED | MT_SF_OPEN, 0, 0,
					  0 });
	put_span(&rt, &(struct mt_span){ 0, MT_NONE64, 1, 2, 3,
					  MT_SPAN_SYSCALL, MT_SF_CLIPSTART |
					  MT_SF_CLIPEND, 0, 0, 0 });
	/* the same string again: no new record */
	CHECK_EQ(put_intern(&rt, "main"), main_id);
	rt_check(&rt);
}

/* Every field at its largest value, string ids included. */
static void test_roundtrip_max(void)
{
	static struct mt_loc fr[3];
	const uint32_t M = UINT32_MAX;
	const uint64_t L = UINT64_MAX;
	size_t i;

	rt_open(&rt);
	put_string(&rt, M, "max", 3);
	put_string(&rt, M - 1, "max-1", 5);
	put_thread(&rt, &(struct mt_thread){ M, M, M, L });
	put_branch(&rt, &(struct mt_branch){ L, M, M, M, 0xff, 0xffff,
					      { L, L, M, M }, { L, L, M, M } });
	put_error(&rt, &(struct mt_error){ L, M, M, M, 0xff, L, M, M, L, M });
	put_mark(&rt, &(struct mt_mark){ L, M, M, M, 0xff, 0xffff, L, L, M,
					  M, L });
	for (i = 0; i < 3; i++)
		fr[i] = (struct mt_loc){ L, L, M - (uint32_t)(i % 2), M };
	put_sample(&rt, &(struct mt_sample){ L, M, M, M, 0xffff, L, M, 3,
					      fr });
	put_span(&rt, &(struct mt_span){ L, L, M, M, M, 0xff, 0xffff, L, M,
					  M });
	put_meta(&rt, &(struct mt_meta){ M, M - 1 });
	rt_check(&rt);
}

/* String bytes: high bytes, every non-NUL byte value, the empty string. */
static void test_roundtrip_strings(void)
{
	static char all[255];
	static const char hi[] = "\x80\x81\xc3\xa9\xfe\xff";
	size_t i;

	for (i = 0; i < sizeof(all); i++)
		all[i] = (char)(i + 1);
	rt_open(&rt);
	put_string(&rt, 1, all, sizeof(all));
	put_string(&rt, 2, hi, sizeof(hi) - 1);
	put_string(&rt, 3, "", 0);
	put_string(&rt, 4, "with space and \"quotes\"\n", 24);
	put_meta(&rt, &(struct mt_meta){ 3, 1 });
	put_meta(&rt, &(struct mt_meta){ 2, 4 });
	rt_check(&rt);
}

/* Unknown skippable records go through mt_write_raw and come back whole. */
static void test_roundtrip_unknown(void)
{
	static const unsigned char r33[] = { 0x33, 5, 0, 0, 1, 2, 3, 4, 5 };
	static const unsigned char r09[] = { 0x09, 0, 0, 0 };
	static const unsigned char r7f[] = { 0x7f, 3, 0, 0, 0, 0xff, 0 };
	/* known types pass through mt_write_raw too */
	static const unsigned char meta[] = { 0x08, 8, 0, 0, 0, 0, 0, 0,
					      0, 0, 0, 0 };
	struct mt_record *r;

	rt_open(&rt);
	put_raw(&rt, r33, sizeof(r33));
	put_meta(&rt, &(struct mt_meta){ 0, 0 });
	put_raw(&rt, r09, sizeof(r09));
	put_raw(&rt, r7f, sizeof(r7f));
	r = expect(&rt, MT_REC_META);
	CHECK_EQ(mt_write_raw(&rt.w, meta, sizeof(meta)), 0);
	r->u.meta.key = 0;
	r->u.meta.value = 0;
	rt_check(&rt);
}

/* A STRING for a defined id redefines it for the records after it. */
static void test_redefine(void)
{
	struct mt_writer w;
	struct mt_buf out;
	struct mt_reader r;
	struct mt_record rec;
	struct mt_branch b = { .from = { 1, 2, 5, 6 } };
	size_t len = 0;

	wopen(&w, &out);
	CHECK_EQ(mt_write_string(&w, 5, "old", 3), 0);
	CHECK_EQ(mt_write_string(&w, 6, "dso", 3), 0);
	CHECK_EQ(mt_write_branch(&w, &b), 0);
	CHECK_EQ(mt_write_string(&w, 5, "a new, longer text", 18), 0);
	CHECK_EQ(mt_write_branch(&w, &b), 0);
	CHECK_EQ(mt_write_string(&w, 5, "", 0), 0);
	CHECK_EQ(mt_write_branch(&w, &b), 0);
	wfinish(&w);

	mt_reader_init_mem(&r, out.p, out.len);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_STR(mt_reader_str(&r, 5, &len), "old");
	CHECK_EQ(len, 3);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_REC_BRANCH);
	CHECK_STR(mt_reader_str(&r, rec.u.branch.from.sym, NULL), "old");
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_REC_STRING);
	CHECK_STR(rec.u.string.p, "a new, longer text");
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_STR(mt_reader_str(&r, rec.u.branch.from.sym, &len),
		  "a new, longer text");
	CHECK_EQ(len, 18);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_REC_BRANCH);
	CHECK_STR(mt_reader_str(&r, 5, &len), "");
	CHECK_EQ(len, 0);
	CHECK_STR(mt_reader_str(&r, 6, NULL), "dso");
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_REC_END);
	CHECK_EQ(rec.u.end.records, 7);
	CHECK_EQ(next(&r, &rec), 0);
	/* the table survives END */
	CHECK_STR(mt_reader_str(&r, 6, NULL), "dso");
	mt_reader_release(&r);
	mt_buf_release(&out);
}

/* mt_writer_intern sends each string once; "" is id 0 without a record. */
static void test_intern_dedup(void)
{
	struct mt_writer w;
	struct mt_buf out;
	uint32_t id = 99;
	size_t len;

	wopen(&w, &out);
	CHECK_EQ(mt_writer_intern(&w, "foo", 3, &id), 0);
	CHECK_EQ(id, 1);
	CHECK_EQ(w.nrecords, 1);
	len = w.len;
	CHECK_EQ(mt_writer_intern(&w, "foo", 3, &id), 0);
	CHECK_EQ(id, 1);
	CHECK_EQ(w.nrecords, 1);
	CHECK_EQ(w.len, len);
	CHECK_EQ(mt_writer_intern(&w, "bar", 3, &id), 0);
	CHECK_EQ(id, 2);
	CHECK_EQ(w.nrecords, 2);
	id = 99;
	CHECK_EQ(mt_writer_intern(&w, "", 0, &id), 0);
	CHECK_EQ(id, 0);
	CHECK_EQ(w.nrecords, 2);
	CHECK_EQ(mt_writer_intern(&w, "foobar", 3, &id), 0);
	CHECK_EQ(id, 1);
	CHECK_EQ(w.nrecords, 2);
	wfinish(&w);
	/* header, two STRINGs of 3 bytes, END */
	CHECK_EQ(out.len, 16 + 2 * (4 + 8 + 3) + 4 + 16);
	CHECK_EQ(expect_ok(out.p, out.len), 3);
	mt_buf_release(&out);
}

/* The exact bytes of a small stream, against docs/format.md. */
static void test_bytes(void)
{
	static const unsigned char want[] = {
		0x89, 'M', 'T', 'S', '\r', '\n', 0x1a, '\n', 1, 0, 2, 0,
		0, 0, 0, 0,
		/* STRING id 1 "ab" */
		0x01, 10, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 'a', 'b',
		/* META 1 0 */
		0x08, 8, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
		/* THREAD */
		0x02, 20, 0, 0, 0x04, 0x03, 0x02, 0x01, 0xff, 0xff, 0xff, 0xff,
		1, 0, 0, 0, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		/* END records=3 bytes=16+14+12+24 */
		0x00, 16, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 66, 0, 0, 0, 0, 0, 0,
		0,
	};
	struct mt_writer w;
	struct mt_buf out;
	uint32_t id;

	wopen(&w, &out);
	CHECK_EQ(mt_writer_intern(&w, "ab", 2, &id), 0);
	CHECK_EQ(mt_write_meta(&w, &(struct mt_meta){ id, 0 }), 0);
	CHECK_EQ(mt_write_thread(&w, &(struct mt_thread){
		0x01020304, MT_NONE32, 1, 0x0102030405060708ull }), 0);
	wfinish(&w);
	CHECK_EQ(out.len, sizeof(want));
	CHECK(out.len == sizeof(want) && !memcmp(out.p, want, sizeof(want)));
	CHECK_EQ(expect_ok(want, sizeof(want)), 4);
	mt_buf_release(&out);
}

/* ---- big streams, pipes ---- */

static struct mt_buf big; /* 100k branches, written once */
enum { NBIG = 100000 };

static void big_branch(size_t i, const uint32_t *sym, uint32_t dso,
		       struct mt_branch *b)
{
	b->time = 1000 + i * 3;
	b->pid = (uint32_t)(i % 7);
	b->tid = (uint32_t)i;
	b->cpu = (uint32_t)(i % 4);
	b->kind = (uint8_t)(i % MT_BR_NKINDS);
	b->flags = (uint16_t)(i & 0x1ff);
	b->from = (struct mt_loc){ i * 16, i % 5 ? i : MT_NONE64,
				   sym[i % 100], dso };
	b->to = (struct mt_loc){ ~(uint64_t)i, i % 3, sym[(i / 2) % 100],
				 i % 2 ? dso : 0 };
}

static void test_big_write(void)
{
	struct mt_writer w;
	uint32_t sym[100], dso;
	char name[16];
	size_t i;

	wopen(&w, &big);
	CHECK_EQ(mt_writer_intern(&w, "/usr/lib/libx.so", 16, &dso), 0);
	for (i = 0; i < NBIG; i++) {
		struct mt_branch b;

		if (i < 100) {
			int n = snprintf(name, sizeof(name), "f%zu", i);

			CHECK_EQ(mt_writer_intern(&w, name, (size_t)n, &sym[i]),
				 0);
		}
		big_branch(i, sym, dso, &b);
		CHECK_EQ(mt_write_branch(&w, &b), 0);
	}
	wfinish(&w);
	CHECK(big.len > 4 * 256 * 1024);
}

/* Read the big stream from r and check every record. */
static void check_big(struct mt_reader *r)
{
	struct mt_record rec;
	uint32_t sym[100], dso = 1;
	size_t i = 0, nbad = 0, nstr = 0;
	int got;

	while ((got = next(r, &rec)) == 1 && rec.type != MT_REC_END) {
		if (rec.type == MT_REC_STRING) {
			if (rec.u.string.id > 1 && rec.u.string.id <= 101)
				sym[rec.u.string.id - 2] = rec.u.string.id;
			nstr++;
			continue;
		}
		if (rec.type == MT_REC_BRANCH && i < NBIG) {
			struct mt_branch b;
			char name[16];

			big_branch(i, sym, dso, &b);
			if (rec.u.branch.time != b.time ||
			    rec.u.branch.tid != b.tid ||
			    rec.u.branch.pid != b.pid ||
			    rec.u.branch.cpu != b.cpu ||
			    rec.u.branch.kind != b.kind ||
			    rec.u.branch.flags != b.flags ||
			    memcmp(&rec.u.branch.from, &b.from, sizeof(b.from)) ||
			    memcmp(&rec.u.branch.to, &b.to, sizeof(b.to)))
				nbad++;
			snprintf(name, sizeof(name), "f%zu", i % 100);
			if (strcmp(mt_reader_str(r, rec.u.branch.from.sym, NULL),
				   name))
				nbad++;
		} else {
			nbad++;
		}
		i++;
	}
	CHECK_EQ(got, 1);
	CHECK_EQ(rec.type, MT_REC_END);
	CHECK_EQ(rec.u.end.records, NBIG + 101);
	CHECK_EQ(rec.u.end.bytes, big.len - MT_REC_HDR - MT_SIZE_END);
	CHECK_EQ(i, NBIG);
	CHECK_EQ(nstr, 101);
	CHECK_EQ(nbad, 0);
	CHECK_EQ(next(r, &rec), 0);
}

static void test_big_mem(void)
{
	struct mt_reader r;

	poison(&r);
	mt_reader_init_mem(&r, big.p, big.len);
	check_big(&r);
	mt_reader_release(&r);
}

/* Over a pipe, written in odd-sized pieces; the caller may have read a
 * prefix already (to sniff the magic). */
static void big_fd(size_t prefix_len, size_t chunk)
{
	struct mt_reader r;
	unsigned char prefix[64];
	pid_t pid;
	int fd = feed(big.p, big.len, chunk, &pid);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_EQ(read_full(fd, prefix, prefix_len), prefix_len);
	poison(&r);
	CHECK_EQ(mt_reader_init_fd(&r, fd, prefix_len ? prefix : NULL,
				   prefix_len), 0);
	check_big(&r);
	mt_reader_release(&r);
	close(fd);
	reap(pid);
}

static void test_big_fd(void)
{
	big_fd(0, 4093);
}

static void test_big_fd_prefix(void)
{
	big_fd(5, 65536);
	big_fd(8, 509);
	big_fd(16, 100000);
	big_fd(23, 4096);
}

/* A record bigger than the 256 KiB read buffer, and the biggest record. */
static void big_string(size_t n, int via_fd)
{
	struct mt_writer w;
	struct mt_buf out;
	struct mt_reader r;
	struct mt_record rec;
	char *s = malloc(n);
	size_t i, len = 0;
	const char *p;
	pid_t pid = 0;
	int fd = -1;

	CHECK(s != NULL);
	if (!s)
		return;
	for (i = 0; i < n; i++)
		s[i] = (char)(i % 255 + 1);
	wopen(&w, &out);
	CHECK_EQ(mt_write_meta(&w, &(struct mt_meta){ 0, 0 }), 0);
	CHECK_EQ(mt_write_string(&w, 7, s, n), 0);
	CHECK_EQ(mt_write_meta(&w, &(struct mt_meta){ 7, 7 }), 0);
	wfinish(&w);
	CHECK_EQ(out.len, 16 + 12 + 4 + 8 + n + 12 + 20);
	if (via_fd) {
		fd = feed(out.p, out.len, 100003, &pid);
		CHECK_EQ(mt_reader_init_fd(&r, fd, NULL, 0), 0);
	} else {
		mt_reader_init_mem(&r, out.p, out.len);
	}
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_REC_STRING);
	CHECK_EQ(rec.offset, 28);
	CHECK_EQ(rec.raw_len, 4 + 8 + n);
	CHECK_EQ(rec.u.string.len, n);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_REC_META);
	CHECK_EQ(rec.offset, 28 + 12 + n);
	p = mt_reader_str(&r, 7, &len);
	CHECK_EQ(len, n);
	CHECK(p && !memcmp(p, s, n) && !p[n]);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_REC_END);
	CHECK_EQ(next(&r, &rec), 0);
	mt_reader_release(&r);
	if (via_fd) {
		close(fd);
		reap(pid);
	}
	mt_buf_release(&out);
	free(s);
}

static void test_big_record(void)
{
	big_string(1 << 20, 0);
	big_string(1 << 20, 1);
	big_string(MT_BODY_MAX - MT_SIZE_STRING, 0);
	big_string(MT_BODY_MAX - MT_SIZE_STRING, 1);
}

/* The fd writer and reader on a file. */
static void test_fd_file(void)
{
	struct mt_writer w;
	struct mt_reader r;
	struct mt_record rec;
	FILE *f = tmpfile();
	int fd, i;

	CHECK(f != NULL);
	if (!f)
		return;
	fd = fileno(f);
	poison(&w);
	CHECK_EQ(mt_writer_init_fd(&w, fd), 0);
	for (i = 0; i < 20000; i++)
		CHECK_EQ(mt_write_thread(&w, &(struct mt_thread){
			(uint32_t)i, 1, 0, 2 }), 0);
	CHECK_EQ(mt_writer_finish(&w), 0);
	mt_writer_release(&w);
	CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
	CHECK_EQ(mt_reader_init_fd(&r, fd, NULL, 0), 0);
	for (i = 0; i < 20000; i++) {
		CHECK_EQ(next(&r, &rec), 1);
		if (rec.type != MT_REC_THREAD || rec.u.thread.pid != (uint32_t)i)
			break;
	}
	CHECK_EQ(i, 20000);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_REC_END);
	CHECK_EQ(rec.u.end.records, 20000);
	CHECK_EQ(rec.u.end.bytes, 16 + 20000 * 24);
	CHECK_EQ(next(&r, &rec), 0);
	mt_reader_release(&r);
	fclose(f);
}

/* ---- lifecycle ---- */

static void test_init(void)
{
	struct mt_reader r;
	struct mt_record rec;
	struct mt_writer w;
	static const char empty[1];

	poison(&r);
	mt_reader_init_mem(&r, empty, 0);
	CHECK(r.strs == NULL && r.buf == NULL && r.frames == NULL);
	CHECK(!r.started && !r.done && !r.eof);
	CHECK_EQ(r.nrecords, 0);
	CHECK(mt_reader_str(&r, 1, NULL) == NULL);
	CHECK_EQ(next(&r, &rec), MT_EMAGIC);
	mt_reader_release(&r);
	mt_reader_release(&r);

	/* NULL, 0 is an empty input too */
	poison(&r);
	mt_reader_init_mem(&r, NULL, 0);
	CHECK_EQ(next(&r, &rec), MT_EMAGIC);
	CHECK_EQ(mt_reader_offset(&r), 0);
	mt_reader_release(&r);

	poison(&r);
	CHECK_EQ(mt_reader_init_fd(&r, 0, NULL, 0), 0);
	CHECK(r.strs == NULL && r.frames == NULL && r.buf == NULL);
	CHECK_EQ(r.fd, 0);
	mt_reader_release(&r);

	poison(&w);
	CHECK_EQ(mt_writer_init_fn(&w, sink_buf, NULL), 0);
	CHECK_EQ(w.err, 0);
	CHECK_EQ(w.nrecords, 0);
	CHECK_EQ(w.offset, 0);
	CHECK_EQ(w.len, MT_HEADER_LEN);
	CHECK(!w.finished);
	CHECK_EQ(mt_intern_count(&w.strings), 0);
	mt_writer_release(&w);
	mt_writer_release(&w);
}

/* An empty stream is header + END. */
static void test_empty_stream(void)
{
	struct mt_writer w;
	struct mt_buf out;
	struct mt_reader r;
	struct mt_record rec;

	wopen(&w, &out);
	wfinish(&w);
	CHECK_EQ(out.len, MT_HEADER_LEN + MT_REC_HDR + MT_SIZE_END);
	mt_reader_init_mem(&r, out.p, out.len);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_REC_END);
	CHECK_EQ(rec.offset, 16);
	CHECK_EQ(mt_reader_offset(&r), 16);
	CHECK_EQ(rec.u.end.records, 0);
	CHECK_EQ(rec.u.end.bytes, 16);
	CHECK_EQ(rec.raw_len, 20);
	CHECK(!memcmp(rec.raw, out.p + 16, 20));
	CHECK_EQ(next(&r, &rec), 0);
	mt_reader_release(&r);
	mt_buf_release(&out);
}

/* ---- the header ---- */

static void test_magic(void)
{
	static const char perf[] = "            bp 1234 [000] 1.000: ...\n";
	static const unsigned char fxt[] = { 0x10, 0x00, 0x04, 0x46, 0x78,
					     0x54, 0x16, 0x00 };
	struct sb s;
	size_t i;
	unsigned char *p;

	sb_init(&s);
	sb_end(&s);
	p = (unsigned char *)s.b.p;
	CHECK_EQ(expect_ok(p, s.b.len), 1);
	for (i = 0; i < MT_MAGIC_LEN; i++) {
		p[i] ^= 0x20;
		expect_err(p, s.b.len, MT_EMAGIC, 0);
		p[i] ^= 0x20;
	}
	expect_err(perf, sizeof(perf) - 1, MT_EMAGIC, 0);
	expect_err(fxt, sizeof(fxt), MT_EMAGIC, 0);
	expect_err("x", 1, MT_EMAGIC, 0);
	expect_err("\x89MTS\n\x1a\n", 7, MT_EMAGIC, 0); /* CRLF -> LF */
	expect_err("\x89MTX", 4, MT_EMAGIC, 0);
	/* a prefix of the magic that ends there is a truncated stream */
	for (i = 1; i <= s.b.len && i < MT_HEADER_LEN; i++)
		expect_err(p, i, MT_ETRUNCATED, 0);
	/* the header alone: no END */
	expect_err(p, MT_HEADER_LEN, MT_ETRUNCATED, 16);
	sb_release(&s);
}

static void test_version(void)
{
	static const uint16_t bad[] = { 0, 2, 3, 0x100, 0xffff };
	struct mt_reader r;
	struct mt_record rec;
	struct sb s;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sb_header(&s, bad[i], 0, 0);
		sb_end(&s);
		expect_err(s.b.p, s.b.len, MT_EVERSION, 0);
		/* the version is checked before anything else is read */
		expect_err(s.b.p, MT_HEADER_LEN, MT_EVERSION, 0);
		sb_release(&s);
	}
	/* any minor version and any header flags are accepted */
	sb_header(&s, 1, 7, 0xffffffff);
	sb_rec(&s, 0x42, "future", 6);
	sb_end(&s);
	mt_reader_init_mem(&r, s.b.p, s.b.len);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, 0x42);
	CHECK_EQ(r.major, 1);
	CHECK_EQ(r.minor, 7);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_REC_END);
	CHECK_EQ(next(&r, &rec), 0);
	mt_reader_release(&r);
	sb_release(&s);
	sb_header(&s, 1, 0xffff, 0);
	sb_end(&s);
	CHECK_EQ(expect_ok(s.b.p, s.b.len), 1);
	sb_release(&s);
}

/* ---- truncation ---- */

/*
 * Cut a stream holding every record type at each byte. Every cut fails:
 * cut 0 (empty input) with MT_EMAGIC, since nothing says it was meant to be
 * a stream; cuts 1..15 inside the header with MT_ETRUNCATED at offset 0;
 * later cuts with MT_ETRUNCATED at the offset of the record the cut falls
 * in (or at the cut, when it falls between records), after returning every
 * record that ends at or before the cut, intact.
 */
static void test_truncated(void)
{
	static struct mt_loc fr[2] = { { 1, 2, 1, 0 }, { 3, 4, 0, 1 } };
	static const unsigned char unk[] = { 0x44, 2, 0, 0, 9, 9 };
	struct mt_writer w;
	struct mt_buf out;
	struct mt_reader r, full;
	struct mt_record rec, all[32];
	uint64_t starts[32];
	size_t nrec = 0, cut, i;
	uint32_t id;

	wopen(&w, &out);
	CHECK_EQ(mt_writer_intern(&w, "sym", 3, &id), 0);
	CHECK_EQ(mt_write_thread(&w, &(struct mt_thread){ 1, 2, id, 3 }), 0);
	CHECK_EQ(mt_write_branch(&w, &(struct mt_branch){
		.time = 5, .kind = 1, .from = { 1, 2, id, id } }), 0);
	CHECK_EQ(mt_write_error(&w, &(struct mt_error){ .msg = id }), 0);
	CHECK_EQ(mt_write_mark(&w, &(struct mt_mark){ .name = id }), 0);
	CHECK_EQ(mt_write_sample(&w, &(struct mt_sample){
		.event = id, .nframes = 2, .frames = fr }), 0);
	CHECK_EQ(mt_write_span(&w, &(struct mt_span){ .end = 1 }), 0);
	CHECK_EQ(mt_write_raw(&w, unk, sizeof(unk)), 0);
	CHECK_EQ(mt_write_meta(&w, &(struct mt_meta){ id, id }), 0);
	wfinish(&w);

	/* full stays open: all[] points into it (frames, strings) */
	mt_reader_init_mem(&full, out.p, out.len);
	while (nrec < 32 && next(&full, &all[nrec]) == 1) {
		starts[nrec] = all[nrec].offset;
		nrec++;
	}
	CHECK_EQ(nrec, 10);

	for (cut = 0; cut < out.len; cut++) {
		int want_err = cut ? MT_ETRUNCATED : MT_EMAGIC;
		uint64_t want_off = 0;
		size_t want_n = 0, n = 0;
		int got;

		for (i = 0; i < nrec && cut >= MT_HEADER_LEN; i++) {
			if (starts[i] <= cut)
				want_off = starts[i];
			if (starts[i] + all[i].raw_len <= cut)
				want_n = i + 1;
		}
		mt_reader_init_mem(&r, out.p, cut);
		while ((got = next(&r, &rec)) == 1) {
			if (n < nrec) {
				CHECK_EQ(rec.offset, all[n].offset);
				check_fields(&rec, &all[n]);
			}
			n++;
		}
		if (got != want_err || mt_reader_offset(&r) != want_off ||
		    n != want_n) {
			fprintf(stderr, "cut %zu: %s at %llu after %zu records\n",
				cut, mt_strerror(got),
				(unsigned long long)mt_reader_offset(&r), n);
			CHECK(0);
		}
		mt_reader_release(&r);
	}
	CHECK_EQ(expect_ok(out.p, out.len), 10);
	mt_reader_release(&full);
	mt_buf_release(&out);
}

/* The same over a pipe, for a few cuts. */
static void test_truncated_fd(void)
{
	static const size_t cuts[] = { 0, 3, 16, 17, 19, 20, 100000, 100001 };
	struct mt_reader r;
	struct mt_record rec;
	size_t i;

	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		size_t cut = cuts[i], n = 0;
		pid_t pid;
		int fd = feed(big.p, cut, 4096, &pid), got;

		CHECK_EQ(mt_reader_init_fd(&r, fd, NULL, 0), 0);
		while ((got = next(&r, &rec)) == 1)
			n++;
		CHECK_EQ(got, cut ? MT_ETRUNCATED : MT_EMAGIC);
		CHECK(mt_reader_offset(&r) <= cut);
		CHECK(mt_reader_offset(&r) + 72 + 4 > cut ||
		      mt_reader_offset(&r) == 0);
		mt_reader_release(&r);
		close(fd);
		reap(pid);
	}
}

/* ---- record sizes ---- */

static const struct {
	unsigned type;
	size_t size;
} v1[] = {
	{ MT_REC_END, MT_SIZE_END },       { MT_REC_STRING, MT_SIZE_STRING },
	{ MT_REC_THREAD, MT_SIZE_THREAD }, { MT_REC_BRANCH, MT_SIZE_BRANCH },
	{ MT_REC_ERROR, MT_SIZE_ERROR },   { MT_REC_MARK, MT_SIZE_MARK },
	{ MT_REC_SAMPLE, MT_SIZE_SAMPLE }, { MT_REC_SPAN, MT_SIZE_SPAN },
	{ MT_REC_META, MT_SIZE_META },
};

/* A body shorter than its type's version-1.0 size is corrupt. */
static void test_short_body(void)
{
	static const unsigned char zero[128];
	struct sb s;
	size_t i, len;

	CHECK_EQ(MT_SIZE_END, 16);
	CHECK_EQ(MT_SIZE_THREAD, 20);
	CHECK_EQ(MT_SIZE_BRANCH, 72);
	CHECK_EQ(MT_SIZE_ERROR, 52);
	CHECK_EQ(MT_SIZE_MARK, 48);
	CHECK_EQ(MT_SIZE_SAMPLE, 40);
	CHECK_EQ(MT_SIZE_FRAME, 24);
	CHECK_EQ(MT_SIZE_SPAN, 48);
	CHECK_EQ(MT_SIZE_META, 8);
	for (i = 0; i < sizeof(v1) / sizeof(v1[0]); i++) {
		size_t lens[3] = { 0, v1[i].size / 2, v1[i].size - 1 }, k;
		unsigned char exact[128];

		for (k = 0; k < 3; k++) {
			uint64_t off;

			len = lens[k];
			sb_init(&s);
			sb_rec(&s, MT_REC_THREAD, zero, MT_SIZE_THREAD);
			off = sb_rec(&s, v1[i].type, zero, len);
			sb_end(&s);
			CHECK_EQ(expect_err(s.b.p, s.b.len, MT_ECORRUPT, off), 1);
			sb_release(&s);
		}
		/* the exact size is fine (a STRING needs an id, a SAMPLE a
		 * frame size) */
		memset(exact, 0, sizeof(exact));
		if (v1[i].type == MT_REC_STRING)
			mt_put32(exact, 1);
		if (v1[i].type == MT_REC_SAMPLE)
			mt_put16(exact + 22, MT_SIZE_FRAME);
		sb_init(&s);
		if (v1[i].type != MT_REC_END)
			sb_rec(&s, v1[i].type, exact, v1[i].size);
		sb_end(&s);
		expect_ok(s.b.p, s.b.len);
		sb_release(&s);
	}
}

/*
 * A body longer than its version-1.0 size is valid and its extra bytes are
 * ignored (they are fields of a later minor version): take a stream of every
 * type, lengthen every body by 7 bytes, END included, and read the same
 * records.
 */
static void test_long_body(void)
{
	static const unsigned char extra[7] = { 0, 0xee, 0, 0xff, 1, 0, 2 };
	static struct mt_loc fr[2] = { { 1, 2, 1, 2 }, { 3, 4, 2, 1 } };
	struct mt_writer w;
	struct mt_buf out;
	struct mt_reader r, r2;
	struct mt_record a, b;
	struct sb s;
	uint64_t end_off = 0;
	int got, n = 0;

	wopen(&w, &out);
	CHECK_EQ(mt_write_string(&w, 1, "one", 3), 0);
	CHECK_EQ(mt_write_string(&w, 2, "two", 3), 0);
	CHECK_EQ(mt_write_thread(&w, &(struct mt_thread){ 1, 2, 1, 3 }), 0);
	CHECK_EQ(mt_write_branch(&w, &(struct mt_branch){
		1, 2, 3, 4, 5, 6, { 7, 8, 1, 2 }, { 9, 10, 2, 1 } }), 0);
	CHECK_EQ(mt_write_error(&w, &(struct mt_error){
		1, 2, 3, 4, 1, 5, 6, 7, 8, 2 }), 0);
	CHECK_EQ(mt_write_mark(&w, &(struct mt_mark){
		1, 2, 3, 4, 5, 0, 6, 7, 1, 2, MT_NONE64 }), 0);
	CHECK_EQ(mt_write_sample(&w, &(struct mt_sample){
		1, 2, 3, 4, 0, 5, 1, 2, fr }), 0);
	CHECK_EQ(mt_write_span(&w, &(struct mt_span){
		1, 2, 3, 4, 5, 1, 0, 6, 1, 2 }), 0);
	CHECK_EQ(mt_write_meta(&w, &(struct mt_meta){ 2, 1 }), 0);
	wfinish(&w);

	/* rebuild with longer bodies */
	sb_init(&s);
	mt_reader_init_mem(&r, out.p, out.len);
	while ((got = next(&r, &a)) == 1) {
		size_t body = a.raw_len - MT_REC_HDR;
		unsigned char rec[4 + 200 + sizeof(extra)];

		CHECK(body <= 200);
		if (body > 200)
			break;
		memcpy(rec, a.raw + MT_REC_HDR, body);
		memcpy(rec + body, extra, sizeof(extra));
		if (a.type == MT_REC_END) {
			end_off = s.b.len;
			mt_put64(rec + 8, end_off);
		}
		sb_rec(&s, a.type, rec, body + sizeof(extra));
	}
	CHECK_EQ(got, 0);
	mt_reader_release(&r);

	mt_reader_init_mem(&r, out.p, out.len);
	mt_reader_init_mem(&r2, s.b.p, s.b.len);
	while ((got = next(&r, &a)) == 1) {
		CHECK_EQ(next(&r2, &b), 1);
		CHECK_EQ(b.raw_len, a.type == MT_REC_END ? a.raw_len :
			 a.raw_len + sizeof(extra));
		if (a.type == MT_REC_END) {
			CHECK_EQ(b.u.end.bytes, end_off);
			CHECK_EQ(b.offset, end_off);
			CHECK_EQ(b.u.end.records, a.u.end.records);
		} else {
			check_fields(&a, &b);
		}
		n++;
	}
	CHECK_EQ(got, 0);
	CHECK_EQ(n, 10);
	CHECK_EQ(next(&r2, &b), 0);
	mt_reader_release(&r);
	mt_reader_release(&r2);

	/* a byte after the long END: trailing data at the END's end */
	{
		unsigned char z = 0;

		CHECK_EQ(mt_buf_add(&s.b, &z, 1), 0);
		expect_err(s.b.p, s.b.len, MT_ETRAILING, s.b.len - 1);
	}
	sb_release(&s);
	mt_buf_release(&out);
}

/* Frames bigger than 24 bytes (fields added by a later minor version). */
static void test_long_frames(void)
{
	unsigned char body[MT_SIZE_SAMPLE + 2 * 32 + 3];
	struct mt_reader r;
	struct mt_record rec;
	struct sb s;
	int i;

	memset(body, 0xaa, sizeof(body));
	mt_put64(body, 1);
	mt_put32(body + 8, 2);
	mt_put32(body + 12, 3);
	mt_put32(body + 16, 4);
	mt_put16(body + 20, 0);
	mt_put16(body + 22, 32);
	mt_put64(body + 24, 5);
	mt_put32(body + 32, 0);
	mt_put32(body + 36, 2);
	for (i = 0; i < 2; i++) {
		unsigned char *f = body + MT_SIZE_SAMPLE + i * 32;

		mt_put64(f, 0x1000u + (unsigned)i);
		mt_put64(f + 8, 0x10u + (unsigned)i);
		mt_put32(f + 16, 0);
		mt_put32(f + 20, 0);
	}
	sb_init(&s);
	sb_rec(&s, MT_REC_SAMPLE, body, sizeof(body));
	sb_end(&s);
	mt_reader_init_mem(&r, s.b.p, s.b.len);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_REC_SAMPLE);
	CHECK_EQ(rec.u.sample.nframes, 2);
	CHECK_EQ(rec.u.sample.time, 1);
	CHECK_EQ(rec.u.sample.period, 5);
	CHECK_EQ(rec.u.sample.frames[0].ip, 0x1000);
	CHECK_EQ(rec.u.sample.frames[1].ip, 0x1001);
	CHECK_EQ(rec.u.sample.frames[1].off, 0x11);
	CHECK_EQ(rec.u.sample.frames[1].sym, 0);
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(next(&r, &rec), 0);
	mt_reader_release(&r);
	sb_release(&s);
}

/* ---- forged records ---- */

static void test_bad_string(void)
{
	unsigned char body[16];
	struct sb s;
	uint64_t off;

	/* id 0 */
	sb_init(&s);
	sb_string(&s, 1, "ok", 2);
	off = sb_string(&s, 0, "a", 1);
	sb_end(&s);
	CHECK_EQ(expect_err(s.b.p, s.b.len, MT_ECORRUPT, off), 1);
	sb_release(&s);

	/* len beyond the body: by one, and by far */
	sb_init(&s);
	mt_put32(body, 1);
	mt_put32(body + 4, 5);
	memcpy(body + 8, "abcd", 4);
	off = sb_rec(&s, MT_REC_STRING, body, 12);
	sb_end(&s);
	expect_err(s.b.p, s.b.len, MT_ECORRUPT, off);
	sb_release(&s);
	sb_init(&s);
	mt_put32(body + 4, UINT32_MAX);
	off = sb_rec(&s, MT_REC_STRING, body, 12);
	sb_end(&s);
	expect_err(s.b.p, s.b.len, MT_ECORRUPT, off);
	sb_release(&s);

	/* a NUL byte, first, inside, last */
	sb_init(&s);
	off = sb_string(&s, 1, "\0bc", 3);
	sb_end(&s);
	expect_err(s.b.p, s.b.len, MT_ECORRUPT, off);
	sb_release(&s);
	sb_init(&s);
	sb_string(&s, 2, "fine", 4);
	off = sb_string(&s, 1, "a\0c", 3);
	sb_end(&s);
	expect_err(s.b.p, s.b.len, MT_ECORRUPT, off);
	sb_release(&s);
	sb_init(&s);
	off = sb_string(&s, 1, "ab\0", 3);
	sb_end(&s);
	expect_err(s.b.p, s.b.len, MT_ECORRUPT, off);
	sb_release(&s);

	/* a NUL after len, in the extra bytes, is fine */
	sb_init(&s);
	mt_put32(body, 1);
	mt_put32(body + 4, 2);
	memcpy(body + 8, "ab\0\0", 4);
	sb_rec(&s, MT_REC_STRING, body, 12);
	sb_end(&s);
	expect_ok(s.b.p, s.b.len);
	sb_release(&s);
}

/* Write a record of each kind with one string field set to an undefined id
 * (99); which field is chosen by k. Returns 0 when k is past the last. */
static int write_undef(struct mt_writer *w, int k)
{
	static struct mt_loc fr[2];
	struct mt_branch b = { .from = { 0, 0, 1, 1 }, .to = { 0, 0, 1, 1 } };
	struct mt_error e = { .msg = 1 };
	struct mt_mark m = { .name = 1, .text = 1 };
	struct mt_sample sa = { .event = 1, .nframes = 2, .frames = fr };
	struct mt_span sp = { .name = 1, .dso = 1 };
	struct mt_meta me = { 1, 1 };
	struct mt_thread t = { .comm = 99 };

	fr[0] = fr[1] = (struct mt_loc){ 0, 0, 1, 1 };
	switch (k) {
	case 0: return !mt_write_thread(w, &t);
	case 1: b.from.sym = 99; return !mt_write_branch(w, &b);
	case 2: b.from.dso = 99; return !mt_write_branch(w, &b);
	case 3: b.to.sym = 99; return !mt_write_branch(w, &b);
	case 4: b.to.dso = 99; return !mt_write_branch(w, &b);
	case 5: e.msg = 99; return !mt_write_error(w, &e);
	case 6: m.name = 99; return !mt_write_mark(w, &m);
	case 7: m.text = 99; return !mt_write_mark(w, &m);
	case 8: sa.event = 99; return !mt_write_sample(w, &sa);
	case 9: fr[0].sym = 99; return !mt_write_sample(w, &sa);
	case 10: fr[1].dso = 99; return !mt_write_sample(w, &sa);
	case 11: sp.name = 99; return !mt_write_span(w, &sp);
	case 12: sp.dso = 99; return !mt_write_span(w, &sp);
	case 13: me.key = 99; return !mt_write_meta(w, &me);
	case 14: me.value = 99; return !mt_write_meta(w, &me);
	}
	return 0;
}

static void test_undef_string(void)
{
	int k;

	for (k = 0;; k++) {
		struct mt_writer w;
		struct mt_buf out;
		uint64_t off;
		int more;

		wopen(&w, &out);
		CHECK_EQ(mt_write_string(&w, 1, "defined", 7), 0);
		CHECK_EQ(mt_write_string(&w, 100, "also", 4), 0);
		off = w.offset + w.len;
		more = write_undef(&w, k);
		wfinish(&w);
		if (!more) {
			mt_buf_release(&out);
			break;
		}
		CHECK_EQ(expect_err(out.p, out.len, MT_EUNDEFSTR, off), 2);
		mt_buf_release(&out);
	}
	CHECK_EQ(k, 15);

	/* a string defined after its first use does not help */
	{
		struct sb s;
		unsigned char body[MT_SIZE_META];
		uint64_t off;

		mt_put32(body, 3);
		mt_put32(body + 4, 0);
		sb_init(&s);
		off = sb_rec(&s, MT_REC_META, body, sizeof(body));
		sb_string(&s, 3, "late", 4);
		sb_end(&s);
		expect_err(s.b.p, s.b.len, MT_EUNDEFSTR, off);
		sb_release(&s);
	}
}

static void test_critical(void)
{
	static const unsigned types[] = { 0x80, 0x81, 0xc3, 0xff };
	struct sb s;
	size_t i;
	uint64_t off;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		sb_init(&s);
		sb_rec(&s, 0x33, "x", 1);
		off = sb_rec(&s, types[i], "0123456789", i % 2 ? 10 : 0);
		sb_end(&s);
		CHECK_EQ(expect_err(s.b.p, s.b.len, MT_ECRITICAL, off), 1);
		sb_release(&s);
	}
}

/* Unknown skippable types come back with type, offset and raw. */
static void test_skippable(void)
{
	static const unsigned types[] = { 0x09, 0x33, 0x7f };
	unsigned char body[300];
	struct mt_reader r;
	struct mt_record rec;
	struct sb s;
	uint64_t off[3];
	size_t i;

	for (i = 0; i < sizeof(body); i++)
		body[i] = (unsigned char)i;
	sb_init(&s);
	off[0] = sb_rec(&s, types[0], body, 0);
	off[1] = sb_rec(&s, types[1], body, 300);
	sb_string(&s, 1, "x", 1);
	off[2] = sb_rec(&s, types[2], body, 4);
	sb_end(&s);
	mt_reader_init_mem(&r, s.b.p, s.b.len);
	for (i = 0; i < 3; i++) {
		size_t len = i == 0 ? 0 : i == 1 ? 300 : 4;

		CHECK_EQ(next(&r, &rec), 1);
		if (i == 2) {
			CHECK_EQ(rec.type, MT_REC_STRING);
			CHECK_EQ(next(&r, &rec), 1);
		}
		CHECK_EQ(rec.type, types[i]);
		CHECK_EQ(rec.offset, off[i]);
		CHECK_EQ(mt_reader_offset(&r), off[i]);
		CHECK_EQ(rec.raw_len, 4 + len);
		CHECK(!memcmp(rec.raw, s.b.p + off[i], 4 + len));
	}
	CHECK_EQ(next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_REC_END);
	CHECK_EQ(rec.u.end.records, 4);
	CHECK_EQ(next(&r, &rec), 0);
	mt_reader_release(&r);
	sb_release(&s);
}

static void test_end_counts(void)
{
	struct sb s;
	uint64_t off;
	int i;

	for (i = 0; i < 6; i++) {
		uint64_t n, bytes;

		sb_init(&s);
		sb_rec(&s, 0x33, "", 0);
		sb_string(&s, 1, "s", 1);
		n = s.n;
		bytes = s.b.len;
		switch (i) {
		case 0: n++; break;
		case 1: n--; break;
		case 2: bytes++; break;
		case 3: bytes--; break;
		case 4: n = 0; bytes = 0; break;
		case 5: n = UINT64_MAX; break;
		}
		off = sb_end_counts(&s, n, bytes);
		CHECK_EQ(expect_err(s.b.p, s.b.len, MT_ECOUNT, off), 2);
		sb_release(&s);
	}
	/* END's short body is corrupt rather than miscounted */
	sb_init(&s);
	off = sb_rec(&s, MT_REC_END, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 15);
	expect_err(s.b.p, s.b.len, MT_ECORRUPT, off);
	sb_release(&s);
}

static void test_trailing(void)
{
	struct sb s, t;
	uint64_t len;

	/* one byte after END */
	sb_init(&s);
	sb_string(&s, 1, "s", 1);
	sb_end(&s);
	len = s.b.len;
	CHECK_EQ(mt_buf_add(&s.b, "\0", 1), 0);
	CHECK_EQ(expect_err(s.b.p, s.b.len, MT_ETRAILING, len), 1);
	sb_release(&s);

	/* two streams pasted together */
	sb_init(&s);
	sb_string(&s, 1, "s", 1);
	sb_end(&s);
	len = s.b.len;
	sb_init(&t);
	sb_end(&t);
	CHECK_EQ(mt_buf_add(&s.b, t.b.p, t.b.len), 0);
	CHECK_EQ(expect_err(s.b.p, s.b.len, MT_ETRAILING, len), 1);
	sb_release(&s);
	sb_release(&t);

	/* a record after END, bigger than the read buffer */
	sb_init(&s);
	sb_end(&s);
	len = s.b.len;
	{
		static unsigned char body[300000];

		sb_rec(&s, 0x33, body, sizeof(body));
	}
	CHECK_EQ(expect_err(s.b.p, s.b.len, MT_ETRAILING, len), 0);
	sb_release(&s);
}

static void test_bad_span(void)
{
	unsigned char body[MT_SIZE_SPAN];
	struct sb s;
	uint64_t off;

	memset(body, 0, sizeof(body));
	mt_put64(body, 10);
	mt_put64(body + 8, 9);
	sb_init(&s);
	sb_rec(&s, MT_REC_META, "\0\0\0\0\0\0\0\0", 8);
	off = sb_rec(&s, MT_REC_SPAN, body, sizeof(body));
	sb_end(&s);
	CHECK_EQ(expect_err(s.b.p, s.b.len, MT_ECORRUPT, off), 1);
	sb_release(&s);

	mt_put64(body, UINT64_MAX);
	mt_put64(body + 8, 0);
	sb_init(&s);
	off = sb_rec(&s, MT_REC_SPAN, body, sizeof(body));
	sb_end(&s);
	expect_err(s.b.p, s.b.len, MT_ECORRUPT, off);
	sb_release(&s);

	/* end == start is a span of length 0 */
	mt_put64(body, 10);
	mt_put64(body + 8, 10);
	sb_init(&s);
	sb_rec(&s, MT_REC_SPAN, body, sizeof(body));
	sb_end(&s);
	expect_ok(s.b.p, s.b.len);
	sb_release(&s);
}

static uint64_t sample_rec(struct sb *s, uint16_t fsize, uint32_t nframes,
			   size_t have_frames)
{
	static unsigned char body[MT_SIZE_SAMPLE + 8 * 64];

	memset(body, 0, sizeof(body));
	mt_put16(body + 22, fsize);
	mt_put32(body + 36, nframes);
	return sb_rec(s, MT_REC_SAMPLE, body,
		      MT_SIZE_SAMPLE + have_frames * fsize);
}

static void test_bad_sample(void)
{
	static const struct {
		uint16_t fsize;
		uint32_t nframes;
		size_t have;
		int ok;
	} c[] = {
		{ 24, 0, 0, 1 },  { 24, 1, 1, 1 },  { 24, 2, 3, 1 },
		{ 64, 2, 2, 1 },  { 0, 0, 0, 0 },   { 0, 1, 0, 0 },
		{ 1, 0, 0, 0 },   { 23, 1, 1, 0 },  { 23, 0, 0, 0 },
		{ 24, 2, 1, 0 },  { 24, 1, 0, 0 },  { 64, 2, 1, 0 },
		{ 24, UINT32_MAX, 8, 0 },           { 0xffff, 1, 0, 0 },
		{ 24, 0x40000000, 8, 0 },
	};
	struct sb s;
	uint64_t off;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		sb_init(&s);
		off = sample_rec(&s, c[i].fsize, c[i].nframes, c[i].have);
		sb_end(&s);
		if (c[i].ok)
			expect_ok(s.b.p, s.b.len);
		else
			CHECK_EQ(expect_err(s.b.p, s.b.len, MT_ECORRUPT, off), 0);
		sb_release(&s);
	}
}

/* The error offset is that of the bad record, deep into a stream. */
static void test_error_offset(void)
{
	struct mt_buf copy = MT_BUF_INIT;
	uint64_t off;
	size_t i;

	/* find the 50000th branch of the big stream, make it critical */
	CHECK_EQ(mt_buf_add(&copy, big.p, big.len), 0);
	off = 16;
	for (i = 0; off < copy.len; i++) {
		unsigned char *p = (unsigned char *)copy.p + off;

		if (i == 50000) {
			p[0] = 0x80;
			break;
		}
		off += 4 + mt_get24(p + 1);
	}
	CHECK_EQ(expect_err(copy.p, copy.len, MT_ECRITICAL, off), 50000);
	mt_buf_release(&copy);
}

/* ---- writer errors ---- */

static void test_write_raw(void)
{
	static const unsigned char good[] = { 0x33, 2, 0, 0, 'h', 'i' };
	static const unsigned char end[] = { 0x00, 16, 0, 0, 0, 0, 0, 0,
					     0, 0, 0, 0, 0, 0, 0, 0,
					     0, 0, 0, 0 };
	struct mt_writer w;
	struct mt_buf out;
	size_t len;

	wopen(&w, &out);
	len = w.len;
	CHECK_EQ(mt_write_raw(&w, good, sizeof(good) - 1), MT_ECORRUPT);
	CHECK_EQ(mt_write_raw(&w, good, sizeof(good) + 0), 0);
	CHECK_EQ(w.len, len + sizeof(good));
	len = w.len;
	CHECK_EQ(mt_write_raw(&w, good, 3), MT_ECORRUPT);
	CHECK_EQ(mt_write_raw(&w, good, 0), MT_ECORRUPT);
	CHECK_EQ(mt_write_raw(&w, end, sizeof(end)), MT_EINVAL);
	{
		unsigned char big8[8] = { 0x33, 2, 0, 0, 1, 2, 3, 4 };

		CHECK_EQ(mt_write_raw(&w, big8, sizeof(big8)), MT_ECORRUPT);
	}
	/* rejected arguments write nothing and leave the writer usable */
	CHECK_EQ(w.len, len);
	CHECK_EQ(w.err, 0);
	CHECK_EQ(w.nrecords, 1);
	wfinish(&w);
	CHECK_EQ(expect_ok(out.p, out.len), 2);
	mt_buf_release(&out);
}

static void test_write_invalid(void)
{
	struct mt_writer w;
	struct mt_buf out;
	uint32_t id = 5;
	size_t len;

	wopen(&w, &out);
	len = w.len;
	CHECK_EQ(mt_writer_intern(&w, "a\0b", 3, &id), MT_EINVAL);
	CHECK_EQ(mt_writer_intern(&w, "\0", 1, &id), MT_EINVAL);
	CHECK_EQ(mt_write_string(&w, 1, "a\0b", 3), MT_EINVAL);
	CHECK_EQ(mt_write_string(&w, 1, "ab\0", 3), MT_EINVAL);
	CHECK_EQ(mt_write_string(&w, 0, "ab", 2), MT_EINVAL);
	CHECK_EQ(mt_write_span(&w, &(struct mt_span){ .start = 2, .end = 1 }),
		 MT_EINVAL);
	CHECK_EQ(w.len, len);
	CHECK_EQ(w.nrecords, 0);
	CHECK_EQ(w.err, 0);
	/* the writer still works, and the bad string was not interned */
	CHECK_EQ(mt_writer_intern(&w, "a", 1, &id), 0);
	CHECK_EQ(id, 1);
	CHECK_EQ(mt_writer_finish(&w), 0);
	CHECK_EQ(mt_writer_finish(&w), MT_EINVAL);
	mt_writer_release(&w);
	CHECK_EQ(expect_ok(out.p, out.len), 2);
	mt_buf_release(&out);
}

static void test_write_toobig(void)
{
	struct mt_writer w;
	struct mt_buf out;
	size_t n = MT_BODY_MAX - MT_SIZE_STRING + 1;
	char *s = malloc(n);
	uint32_t id = 5;

	CHECK(s != NULL);
	if (!s)
		return;
	memset(s, 'x', n);
	wopen(&w, &out);
	CHECK_EQ(mt_write_string(&w, 1, s, n), MT_ETOOBIG);
	CHECK_EQ(mt_writer_intern(&w, s, n, &id), MT_ETOOBIG);
	CHECK_EQ(id, 0);
	CHECK_EQ(mt_write_sample(&w, &(struct mt_sample){
		.nframes = (MT_BODY_MAX - MT_SIZE_SAMPLE) / MT_SIZE_FRAME + 1 }),
		 MT_ETOOBIG);
	CHECK_EQ(mt_write_sample(&w, &(struct mt_sample){
		.nframes = UINT32_MAX }), MT_ETOOBIG);
	CHECK_EQ(w.nrecords, 0);
	/* one byte less fits */
	CHECK_EQ(mt_writer_intern(&w, s, n - 1, &id), 0);
	CHECK_EQ(id, 1);
	wfinish(&w);
	CHECK_EQ(expect_ok(out.p, out.len), 2);
	mt_buf_release(&out);
	free(s);
}

struct failing {
	int calls, fail_at, err;
	struct mt_buf out;
};

static int sink_fail(void *ctx, const void *p, size_t n)
{
	struct failing *f = ctx;

	if (++f->calls >= f->fail_at)
		return f->err;
	return mt_buf_add(&f->out, p, n);
}

/* Every call after a sink failure returns that failure, and the sink is
 * not called again. */
static void check_sticky(struct mt_writer *w, int err)
{
	static struct mt_loc fr[1];
	static const unsigned char raw[] = { 0x33, 0, 0, 0 };
	uint32_t id = 9;

	CHECK_EQ(mt_write_thread(w, &(struct mt_thread){ 0 }), err);
	CHECK_EQ(mt_write_branch(w, &(struct mt_branch){ 0 }), err);
	CHECK_EQ(mt_write_error(w, &(struct mt_error){ 0 }), err);
	CHECK_EQ(mt_write_mark(w, &(struct mt_mark){ 0 }), err);
	CHECK_EQ(mt_write_sample(w, &(struct mt_sample){
		.nframes = 1, .frames = fr }), err);
	CHECK_EQ(mt_write_span(w, &(struct mt_span){ 0 }), err);
	CHECK_EQ(mt_write_meta(w, &(struct mt_meta){ 0 }), err);
	CHECK_EQ(mt_write_string(w, 3, "abc", 3), err);
	CHECK_EQ(mt_writer_intern(w, "new", 3, &id), err);
	CHECK_EQ(id, 0);
	CHECK_EQ(mt_write_raw(w, raw, sizeof(raw)), err);
	CHECK_EQ(mt_writer_flush(w), err);
	CHECK_EQ(mt_writer_finish(w), err);
	CHECK_EQ(mt_writer_flush(w), err);
}

static void test_sticky(void)
{
	struct mt_writer w;
	struct failing f = { 0, 1, MT_EIO, MT_BUF_INIT };
	int i, err = 0;

	/* the first flush fails */
	CHECK_EQ(mt_writer_init_fn(&w, sink_fail, &f), 0);
	CHECK_EQ(mt_write_meta(&w, &(struct mt_meta){ 0 }), 0);
	CHECK_EQ(mt_writer_flush(&w), MT_EIO);
	CHECK_EQ(f.calls, 1);
	check_sticky(&w, MT_EIO);
	CHECK_EQ(f.calls, 1);
	mt_writer_release(&w);

	/* a flush forced by a full buffer fails: the write that caused it
	 * returns the error */
	f = (struct failing){ 0, 3, MT_ENOMEM, MT_BUF_INIT };
	CHECK_EQ(mt_writer_init_fn(&w, sink_fail, &f), 0);
	for (i = 0; i < 100000 && !err; i++)
		err = mt_write_branch(&w, &(struct mt_branch){ .tid = 1 });
	CHECK_EQ(err, MT_ENOMEM);
	CHECK_EQ(f.calls, 3);
	CHECK(f.out.len > 0);
	check_sticky(&w, MT_ENOMEM);
	CHECK_EQ(f.calls, 3);
	mt_writer_release(&w);
	mt_buf_release(&f.out);

	/* finish fails */
	f = (struct failing){ 0, 1, MT_EIO, MT_BUF_INIT };
	CHECK_EQ(mt_writer_init_fn(&w, sink_fail, &f), 0);
	CHECK_EQ(mt_writer_finish(&w), MT_EIO);
	CHECK_EQ(mt_writer_flush(&w), MT_EIO);
	mt_writer_release(&w);
}

/* A pipe whose reader has gone: MT_EPIPE, sticky. */
static void test_epipe(void)
{
	struct mt_writer w;
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	int fds[2];

	CHECK_EQ(pipe(fds), 0);
	close(fds[0]);
	CHECK_EQ(mt_writer_init_fd(&w, fds[1]), 0);
	CHECK_EQ(mt_write_meta(&w, &(struct mt_meta){ 0 }), 0);
	CHECK_EQ(mt_writer_flush(&w), MT_EPIPE);
	check_sticky(&w, MT_EPIPE);
	mt_writer_release(&w);
	close(fds[1]);

	/* a bad fd is an I/O error */
	CHECK_EQ(mt_writer_init_fd(&w, -1), 0);
	CHECK_EQ(mt_writer_finish(&w), MT_EIO);
	mt_writer_release(&w);
	signal(SIGPIPE, old);
}

/* A read error is MT_EIO. */
static void test_read_error(void)
{
	struct mt_reader r;
	struct mt_record rec;

	CHECK_EQ(mt_reader_init_fd(&r, -1, NULL, 0), 0);
	CHECK_EQ(next(&r, &rec), MT_EIO);
	mt_reader_release(&r);
	CHECK_EQ(mt_reader_init_fd(&r, -1, MT_MAGIC "\1\0\0\0\0\0", 14), 0);
	CHECK_EQ(next(&r, &rec), MT_EIO);
	mt_reader_release(&r);
}

int main(void)
{
	RUN(test_init);
	RUN(test_empty_stream);
	RUN(test_bytes);
	RUN(test_roundtrip_types);
	RUN(test_roundtrip_max);
	RUN(test_roundtrip_strings);
	RUN(test_roundtrip_unknown);
	RUN(test_redefine);
	RUN(test_intern_dedup);
	RUN(test_big_write);
	RUN(test_big_mem);
	RUN(test_big_fd);
	RUN(test_big_fd_prefix);
	RUN(test_big_record);
	RUN(test_fd_file);
	RUN(test_magic);
	RUN(test_version);
	RUN(test_truncated);
	RUN(test_truncated_fd);
	RUN(test_short_body);
	RUN(test_long_body);
	RUN(test_long_frames);
	RUN(test_bad_string);
	RUN(test_undef_string);
	RUN(test_critical);
	RUN(test_skippable);
	RUN(test_end_counts);
	RUN(test_trailing);
	RUN(test_bad_span);
	RUN(test_bad_sample);
	RUN(test_error_offset);
	RUN(test_write_raw);
	RUN(test_write_invalid);
	RUN(test_write_toobig);
	RUN(test_sticky);
	RUN(test_epipe);
	RUN(test_read_error);
	mt_buf_release(&big);
	return unit_done();
}
