/*
 * libFuzzer harness for the FXT reader (common/fxtread.c) and the tests'
 * checker (tests/helpers/fxtcheck.c): any bytes must read to the end or
 * to a fatal error, and check, without a crash, a leak or undefined
 * behaviour.
 *
 * Besides surviving, it checks what the reader promises: records follow
 * each other 8-byte aligned inside the input, every resolved string is
 * readable to its length and NUL-terminated there, argument counts stay
 * within 15, a fatal error is sticky; and what the checker promises: the
 * record-by-record path and mt_fxt_check_mem agree, slices come sorted by
 * (pid, tid, start, file order) with depths below 512, their arguments and
 * strings are in range, examples point inside the input. Reading from a
 * source (mt_fxt_reader_init_fn: a prefix, then reads of odd sizes) gives
 * the same records and the same fatal error as reading from memory.
 *
 * Built and run by tests/fuzz/run.
 * fuzz-link: -Itests/helpers tests/helpers/fxtcheck.c
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "fxtcheck.h"
#include "banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define require(cond)                                                        \
	do {                                                                 \
		if (!(cond))                                                 \
			__builtin_trap();                                    \
	} while (0)

static unsigned sink;

/* A string; ref says whether it came from a string ref (not the text of a
 * string record or a provider name, nor a blob payload) in a record that
 * was decoded to its end (a bad record's fields after the fault are not). */
static void use_text(const struct mt_fxt_str *s, int ref)
{
	size_t i;

	if (!s->p)
		return;
	for (i = 0; i < s->len; i++) /* let ASan see every byte */
		sink += (unsigned char)s->p[i];
	require(s->p[s->len] == '\0');
	if (!ref)
		return;
	if (s->ref & 0x8000)
		require(s->len == (s->ref & 0x7fffu));
	if (!s->ref)
		require(s->len == 0);
}

static int whole; /* the record being looked at is not bad */

static void use_str(const struct mt_fxt_str *s)
{
	use_text(s, whole);
}

static void use_args(const struct mt_fxt_arg *a, unsigned n)
{
	unsigned i;

	require(n <= MT_FXT_MAX_ARGS);
	for (i = 0; i < n; i++) {
		require(a[i].size >= 1);
		use_str(&a[i].name);
		use_text(&a[i].s, whole && a[i].type == MT_FXT_ARG_STRING);
		if (a[i].type == MT_FXT_ARG_BOOL)
			require(a[i].u <= 1);
	}
}

static void use_record(const struct mt_fxt_record *rec, const uint8_t *data,
		       size_t size)
{
	size_t i;

	require(rec->size >= 8 && rec->size % 8 == 0);
	require(rec->offset % 8 == 0 && rec->offset + rec->size <= size);
	require(rec->raw == data + rec->offset);
	require(rec->type == (rec->header & 15));
	for (i = 0; i < rec->size; i++)
		sink += rec->raw[i];
	require(!rec->bad == !rec->why);
	whole = !rec->bad;
	if (rec->provider)
		require(rec->provider->name[rec->provider->name_len] == '\0');
	switch (rec->type) {
	case MT_FXT_METADATA:
		use_text(&rec->u.meta.name, 0);
		break;
	case MT_FXT_STRING:
		use_text(&rec->u.string.str, 0);
		break;
	case MT_FXT_EVENT:
		use_str(&rec->u.event.cat);
		use_str(&rec->u.event.name);
		use_args(rec->u.event.args, rec->u.event.nargs);
		if (rec->u.event.thread.undefined)
			require(!rec->u.event.thread.pid &&
				!rec->u.event.thread.tid);
		break;
	case MT_FXT_KOBJ:
		use_str(&rec->u.kobj.name);
		use_args(rec->u.kobj.args, rec->u.kobj.nargs);
		break;
	default:
		break;
	}
}

/* Read everything record by record into c; the fatal error or 0. */
static int read_all(const uint8_t *data, size_t size, struct mt_fxt_check *c)
{
	struct mt_fxt_reader r;
	static struct mt_fxt_record rec;
	uint64_t next = 0;
	int got;

	mt_fxt_reader_init_mem(&r, data, size);
	while ((got = mt_fxt_next(&r, &rec)) == 1) {
		require(rec.offset == next);
		require(mt_fxt_reader_offset(&r) == rec.offset);
		next = rec.offset + rec.size;
		use_record(&rec, data, size);
		require(mt_fxt_check_record(c, &rec) == 0);
	}
	require(got == 0 || got == MT_ECORRUPT || got == MT_ETRUNCATED);
	if (got) {
		require(mt_fxt_reader_offset(&r) == next);
		require(mt_fxt_next(&r, &rec) == got);
		require(mt_fxt_check_error(c, got, mt_fxt_reader_offset(&r)) ==
			0);
	} else {
		require(next == size);
		require(mt_fxt_next(&r, &rec) == 0);
	}
	mt_fxt_reader_release(&r);
	return got;
}

/* A source of the fuzzer's bytes, a few at a time. */
struct chunks {
	const uint8_t *p;
	size_t len, pos;
};

static ssize_t chunk_read(void *ctx, void *buf, size_t n)
{
	struct chunks *c = ctx;
	size_t k = c->len - c->pos;

	if (k > n)
		k = n;
	if (k > 1 + c->pos % 13)
		k = 1 + c->pos % 13;
	memcpy(buf, c->p + c->pos, k);
	c->pos += k;
	return (ssize_t)k;
}

/* The same records from a source as from memory. */
static void read_source(const uint8_t *data, size_t size)
{
	static struct mt_fxt_record a, b;
	struct mt_fxt_reader m, s;
	size_t pre = size < 5 ? size : 5;
	struct chunks c = { data + pre, size - pre, 0 };
	int ga, gb;

	mt_fxt_reader_init_mem(&m, data, size);
	require(mt_fxt_reader_init_fn(&s, chunk_read, &c, data, pre) == 0);
	do {
		ga = mt_fxt_next(&m, &a);
		gb = mt_fxt_next(&s, &b);
		require(ga == gb);
		require(mt_fxt_reader_offset(&m) == mt_fxt_reader_offset(&s));
		if (ga == 1) {
			require(a.offset == b.offset && a.size == b.size &&
				a.header == b.header && a.bad == b.bad &&
				a.undefined == b.undefined);
			require(!memcmp(a.raw, b.raw, a.size));
			require(!a.provider == !b.provider);
		} else if (ga == MT_ETRUNCATED) {
			require(m.err_have == s.err_have);
			if (m.err_have >= 8)
				require(m.err_header == s.err_header);
		} else if (ga == MT_ECORRUPT) {
			require(m.err_header == s.err_header);
		}
	} while (ga == 1);
	mt_fxt_reader_release(&m);
	mt_fxt_reader_release(&s);
}

static int slice_before(const struct mt_fxt_slice *a,
			const struct mt_fxt_slice *b)
{
	if (a->pid != b->pid)
		return a->pid < b->pid;
	if (a->tid != b->tid)
		return a->tid < b->tid;
	if (a->start != b->start)
		return a->start < b->start;
	return a->order < b->order;
}

static void use_check(const struct mt_fxt_check *c, size_t size)
{
	uint64_t open = 0;
	size_t i, len;
	int k;

	for (k = 0; k < MT_FXT_NPROBLEMS; k++) {
		uint64_t j;

		for (j = 0; j < c->count[k] && j < MT_FXT_EXAMPLES; j++) {
			require(c->ex[k][j].offset <= size);
			require(strlen(c->ex[k][j].what) <
				sizeof(c->ex[k][j].what));
		}
	}
	require(c->nthreads <= c->nslices + c->count[MT_FXT_END_WITHOUT_BEGIN] +
				       c->count[MT_FXT_SLICE_DROP_OVERLAPPING] +
				       c->count[MT_FXT_DEPTH_OVER_512]);
	for (i = 0; i < c->nslices; i++) {
		const struct mt_fxt_slice *s = &c->slices[i];

		require(s->depth < MT_FXT_MAX_DEPTH);
		/* the duration may be anything: Perfetto's cut of slices open
		 * past a complete event's end can give negative ones */
		require(s->start >= 0);
		require(s->offset + 8 <= size);
		require(s->arg0 + s->nargs <= c->nargs);
		if (i)
			require(slice_before(&c->slices[i - 1], s));
		open += s->dur == -1;
		sink += (unsigned char)*mt_fxt_check_str(c, s->name, &len);
		sink += (unsigned)len;
		mt_fxt_check_str(c, s->cat, NULL);
	}
	require(open == c->count[MT_FXT_DID_NOT_END]);
	for (i = 0; i < c->nargs; i++) {
		mt_fxt_check_str(c, c->args[i].name, NULL);
		if (c->args[i].type == MT_FXT_ARG_STRING)
			mt_fxt_check_str(c, c->args[i].s, NULL);
	}
	for (i = 0; i < c->nnames; i++) {
		mt_fxt_check_str(c, c->names[i].name, NULL);
		if (i) {
			const struct mt_fxt_name *a = &c->names[i - 1];
			const struct mt_fxt_name *b = &c->names[i];

			require(a->pid < b->pid ||
				(a->pid == b->pid && (a->thread < b->thread ||
				 (a->thread == b->thread && a->tid < b->tid))));
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mt_fxt_check a, b;
	size_t i;
	int k, err;

	mt_fxt_check_init(&a);
	read_all(data, size, &a);
	require(mt_fxt_check_finish(&a) == 0);
	require(mt_fxt_check_finish(&a) == 0); /* once only */
	use_check(&a, size);

	mt_fxt_check_init(&b);
	err = mt_fxt_check_mem(&b, data, size);
	require(err == 0);
	require(a.nrecords == b.nrecords && a.nslices == b.nslices &&
		a.nnames == b.nnames && a.nthreads == b.nthreads);
	for (k = 0; k < MT_FXT_NPROBLEMS; k++)
		require(a.count[k] == b.count[k]);
	for (i = 0; i < a.nslices; i++) {
		const struct mt_fxt_slice *x = &a.slices[i], *y = &b.slices[i];

		require(x->pid == y->pid && x->tid == y->tid &&
			x->start == y->start && x->dur == y->dur &&
			x->depth == y->depth && x->order == y->order &&
			x->offset == y->offset && x->nargs == y->nargs);
	}
	mt_fxt_check_release(&a);
	mt_fxt_check_release(&b);
	read_source(data, size);
	return 0;
}
