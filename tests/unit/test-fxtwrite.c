/*
 * Unit tests for the FXT encoder (common/fxtwrite.h): the worked examples
 * of docs/fxt.md 1.5-1.9 byte for byte, records written and read back by
 * common/fxtread.h, the string and thread tables past their 32767 and 255
 * indexes, and every error.
 */
#include <stdint.h>
#include <stdlib.h>

#include "buf.h"
#include "err.h"
#include "fxtcheck.h"
#include "fxtwrite.h"
#include "wire.h"
#include "unit.h"
#include "banned.h"

static struct mt_buf out;
static struct mt_fxtw w;

static void start(void)
{
	mt_buf_release(&out);
	poison(&w);
	mt_fxtw_init_buf(&w, &out);
}

static uint64_t word_at(size_t i)
{
	return mt_get64((unsigned char *)out.p + 8 * i);
}

/* the whole of out, read back with the reader and checked: every record
 * good, nothing Perfetto would drop */
static void check_clean(void)
{
	struct mt_fxt_check c;

	mt_fxt_check_init(&c);
	CHECK_EQ(mt_fxt_check_mem(&c, out.p, out.len), 0);
	CHECK_EQ(mt_fxt_check_problems(&c), 0);
	mt_fxt_check_release(&c);
}

static void prelude(void)
{
	CHECK_EQ(mt_fxtw_magic(&w), 0);
	CHECK_EQ(mt_fxtw_provider(&w, 0, "mt", 2), 0);
	CHECK_EQ(mt_fxtw_initialization(&w, MT_FXT_TICKS_NS), 0);
}

/* docs/fxt.md 1.3-1.9: the headers of the worked examples */
static void test_examples(void)
{
	struct mt_fxtw_event ev = { .thread = { .index = 1 },
				    .cat = MT_FXTW_INDEX(1),
				    .name = MT_FXTW_INDEX(2), .ts = 1000 };

	start();
	CHECK_EQ(mt_fxtw_magic(&w), 0);
	CHECK_EQ(out.len, 8);
	CHECK(!memcmp(out.p, "\x10\x00\x04\x46\x78\x54\x16\x00", 8));
	CHECK_EQ(word_at(0), MT_FXT_MAGIC);

	mt_buf_reset(&out);
	CHECK_EQ(mt_fxtw_string(&w, 1, "fn", 2), 0);
	CHECK_EQ(out.len, 16);
	CHECK_EQ(word_at(0), 0x0000000200010022ull);
	CHECK(!memcmp(out.p + 8, "fn\0\0\0\0\0\0", 8));

	mt_buf_reset(&out);
	CHECK_EQ(mt_fxtw_thread(&w, 1, 1234, 1235), 0);
	CHECK_EQ(word_at(0), 0x0000000000010033ull);
	CHECK_EQ(word_at(1), 1234);
	CHECK_EQ(word_at(2), 1235);

	mt_buf_reset(&out);
	CHECK_EQ(mt_fxtw_begin(&w, &ev), 0);
	CHECK_EQ(out.len, 16);
	CHECK_EQ(word_at(0), 0x0002000101020024ull);
	mt_buf_reset(&out);
	CHECK_EQ(mt_fxtw_end(&w, &ev), 0);
	CHECK_EQ(word_at(0), 0x0002000101030024ull);
	mt_buf_reset(&out);
	CHECK_EQ(mt_fxtw_complete(&w, &ev, 5000), 0);
	CHECK_EQ(out.len, 24);
	CHECK_EQ(word_at(0), 0x0002000101040034ull);
	CHECK_EQ(word_at(1), 1000);
	CHECK_EQ(word_at(2), 5000);

	/* 1.9: thread koid, name index 5, "process" (index 4) = pid */
	mt_buf_reset(&out);
	CHECK_EQ(mt_fxtw_thread_name(&w, 1235, MT_FXTW_INDEX(5), 1234,
				     MT_FXTW_INDEX(4)), 0);
	CHECK_EQ(out.len, 32);
	CHECK_EQ(word_at(0), 0x0000010005020047ull);
	CHECK_EQ(word_at(1), 1235);
	CHECK_EQ(word_at(2), 0x0000000000040028ull);
	CHECK_EQ(word_at(3), 1234);

	mt_buf_reset(&out);
	CHECK_EQ(mt_fxtw_initialization(&w, MT_FXT_TICKS_NS), 0);
	CHECK(!memcmp(out.p, "\x21\0\0\0\0\0\0\0\x00\xca\x9a\x3b\0\0\0\0", 16));
	mt_fxtw_release(&w);
}

/* every record type and argument type, read back field by field */
static void test_roundtrip(void)
{
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;
	struct mt_fxtw_arg a[10] = {
		{ .type = MT_FXT_ARG_NULL, .name = MT_FXTW_INLINE("null", 4) },
		{ .type = MT_FXT_ARG_INT32, .name = MT_FXTW_INDEX(1),
		  .u = (uint64_t)-5 },
		{ .type = MT_FXT_ARG_UINT32, .name = MT_FXTW_INLINE("u32", 3),
		  .u = 0xfffffffe },
		{ .type = MT_FXT_ARG_INT64, .name = MT_FXTW_INLINE("i64", 3),
		  .u = (uint64_t)-7 },
		{ .type = MT_FXT_ARG_UINT64, .name = MT_FXTW_INLINE("u64", 3),
		  .u = 1ull << 63 },
		{ .type = MT_FXT_ARG_DOUBLE, .name = MT_FXTW_INLINE("d", 1),
		  .d = 2.5 },
		{ .type = MT_FXT_ARG_STRING, .name = MT_FXTW_INLINE("s", 1),
		  .s = MT_FXTW_INLINE("a value of 17 b..", 17) },
		{ .type = MT_FXT_ARG_POINTER, .name = MT_FXTW_INLINE("p", 1),
		  .u = 0xabcd },
		{ .type = MT_FXT_ARG_KOID, .name = MT_FXTW_INLINE("k", 1),
		  .u = 42 },
		{ .type = MT_FXT_ARG_BOOL, .name = MT_FXTW_INLINE("b", 1),
		  .u = 1 },
	};
	struct mt_fxtw_event ev = {
		.thread = { .index = 0, .pid = 7, .tid = 8 },
		.cat = MT_FXTW_INLINE("cat", 3), .name = MT_FXTW_INDEX(2),
		.ts = 100, .args = a, .nargs = 10,
	};
	unsigned i;

	start();
	prelude();
	CHECK_EQ(mt_fxtw_string(&w, 1, "code", 4), 0);
	CHECK_EQ(mt_fxtw_string(&w, 2, "main", 4), 0);
	CHECK_EQ(mt_fxtw_process_name(&w, 7, MT_FXTW_INLINE("prog", 4)), 0);
	CHECK_EQ(mt_fxtw_thread_name(&w, 8, MT_FXTW_INLINE("worker", 6), 7,
				     MT_FXTW_INLINE("process", 7)), 0);
	CHECK_EQ(mt_fxtw_complete(&w, &ev, 300), 0);
	ev.nargs = 1;
	ev.args = &a[1];
	CHECK_EQ(mt_fxtw_counter(&w, &ev, 99), 0);
	ev.nargs = 0;
	CHECK_EQ(mt_fxtw_instant(&w, &ev), 0);
	CHECK_EQ(w.string_records, 2);
	check_clean();

	mt_fxt_reader_init_mem(&r, out.p, out.len);
	for (i = 0; i < 6; i++)
		CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_FXT_KOBJ);
	CHECK_EQ(rec.u.kobj.obj_type, MT_FXT_OBJ_PROCESS);
	CHECK_STR(rec.u.kobj.name.p, "prog");
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.u.kobj.obj_type, MT_FXT_OBJ_THREAD);
	CHECK_EQ(rec.u.kobj.koid, 8);
	CHECK_EQ(rec.u.kobj.nargs, 1);
	CHECK_STR(rec.u.kobj.args[0].name.p, "process");
	CHECK_EQ(rec.u.kobj.args[0].type, MT_FXT_ARG_KOID);
	CHECK_EQ(rec.u.kobj.args[0].u, 7);

	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK(!rec.bad);
	CHECK_EQ(rec.type, MT_FXT_EVENT);
	CHECK_EQ(rec.u.event.type, MT_FXT_EV_COMPLETE);
	CHECK_EQ(rec.u.event.thread.pid, 7);
	CHECK_EQ(rec.u.event.thread.tid, 8);
	CHECK_STR(rec.u.event.cat.p, "cat");
	CHECK_STR(rec.u.event.name.p, "main");
	CHECK_EQ(rec.u.event.ts, 100);
	CHECK_EQ(rec.u.event.end_ts, 300);
	CHECK_EQ(rec.u.event.nargs, 10);
	for (i = 0; i < 10; i++)
		CHECK_EQ(rec.u.event.args[i].type, a[i].type);
	CHECK_STR(rec.u.event.args[0].name.p, "null");
	CHECK_STR(rec.u.event.args[1].name.p, "code");
	CHECK_EQ(rec.u.event.args[1].i, -5);
	CHECK_EQ(rec.u.event.args[2].u, 0xfffffffe);
	CHECK_EQ(rec.u.event.args[3].i, -7);
	CHECK_EQ(rec.u.event.args[4].u, 1ull << 63);
	CHECK(rec.u.event.args[5].d == 2.5);
	CHECK_STR(rec.u.event.args[6].s.p, "a value of 17 b..");
	CHECK_EQ(rec.u.event.args[7].u, 0xabcd);
	CHECK_EQ(rec.u.event.args[8].u, 42);
	CHECK_EQ(rec.u.event.args[9].u, 1);

	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.u.event.type, MT_FXT_EV_COUNTER);
	CHECK_EQ(rec.u.event.id, 99);
	CHECK_EQ(rec.u.event.nargs, 1);
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.u.event.type, MT_FXT_EV_INSTANT);
	CHECK_EQ(rec.size, 40); /* pid, tid and "cat" inline */
	CHECK_EQ(mt_fxt_next(&r, &rec), 0);
	mt_fxt_reader_release(&r);
	mt_fxtw_release(&w);
}

/* a record read, written again: a new type, time and arguments after its
 * own, the rest byte for byte (a raw argument included) */
static void test_again(void)
{
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;
	struct mt_fxtw_arg own = { .type = MT_FXT_ARG_UINT64,
				   .name = MT_FXTW_INLINE("x", 1), .u = 3 };
	struct mt_fxtw_event ev = { .thread = { .pid = 5, .tid = 6 },
				    .name = MT_FXTW_INLINE("f", 1), .ts = 10,
				    .args = &own, .nargs = 1 };
	struct mt_fxtw_arg flag = { .type = MT_FXT_ARG_BOOL,
				    .name = MT_FXTW_INLINE("clipped end", 11),
				    .u = 1 };
	struct mt_fxtw_arg raw;
	struct mt_buf body = MT_BUF_INIT, first = MT_BUF_INIT;
	size_t at;

	start();
	prelude();
	at = out.len;
	CHECK_EQ(mt_fxtw_begin(&w, &ev), 0);
	CHECK_EQ(mt_buf_add(&first, out.p + at, out.len - at), 0);
	/* the begin as raw bytes: the whole record is its body */
	CHECK_EQ(mt_buf_add(&body, first.p, first.len), 0);
	/* its argument, as read: header, name, value */
	raw = (struct mt_fxtw_arg){ .raw = (unsigned char *)first.p + first.len - 24,
				    .raw_len = 24 };
	CHECK_EQ(mt_fxtw_arg_words(&raw), 3);
	CHECK_EQ(mt_fxtw_event_again(&w, MT_FXT_EV_COMPLETE,
				     (unsigned char *)body.p, body.len, 20,
				     &flag, 1, 40), 0);
	CHECK_EQ(mt_fxtw_event_again(&w, MT_FXT_EV_END,
				     (unsigned char *)body.p, body.len, 50,
				     &raw, 1, 0), 0);
	check_clean();
	mt_fxt_reader_init_mem(&r, out.p, out.len);
	while (mt_fxt_next(&r, &rec) == 1 && rec.type != MT_FXT_EVENT)
		;
	CHECK_EQ(rec.u.event.type, MT_FXT_EV_BEGIN);
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.u.event.type, MT_FXT_EV_COMPLETE);
	CHECK_EQ(rec.u.event.ts, 20);
	CHECK_EQ(rec.u.event.end_ts, 40);
	CHECK_EQ(rec.u.event.thread.pid, 5);
	CHECK_STR(rec.u.event.name.p, "f");
	CHECK_EQ(rec.u.event.nargs, 2);
	CHECK_EQ(rec.u.event.args[0].u, 3);
	CHECK_STR(rec.u.event.args[1].name.p, "clipped end");
	CHECK_EQ(rec.size, first.len + 24 + 8); /* the flag, the end */
	CHECK(!memcmp(rec.raw + 16, first.p + 16, first.len - 16));
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.u.event.type, MT_FXT_EV_END);
	CHECK_EQ(rec.u.event.nargs, 2);
	CHECK_STR(rec.u.event.args[1].name.p, "x");
	CHECK_EQ(rec.u.event.args[1].u, 3);
	mt_fxt_reader_release(&r);

	/* 15 arguments at most */
	own.type = MT_FXT_ARG_NULL;
	{
		struct mt_fxtw_arg many[15];
		unsigned i;

		for (i = 0; i < 15; i++)
			many[i] = own;
		CHECK_EQ(mt_fxtw_event_again(&w, MT_FXT_EV_END,
					     (unsigned char *)body.p, body.len,
					     0, many, 15, 0), MT_EINVAL);
		CHECK_EQ(mt_fxtw_event_again(&w, MT_FXT_EV_END,
					     (unsigned char *)body.p, body.len,
					     0, many, 14, 0), 0);
	}
	CHECK_EQ(mt_fxtw_event_again(&w, MT_FXT_EV_END,
				     (unsigned char *)body.p, 8, 0, NULL, 0, 0),
		 MT_EINVAL);
	mt_buf_release(&body);
	mt_buf_release(&first);
	mt_fxtw_release(&w);
}

/*
 * 40000 keys through the string table (more than its 32767 indexes) and
 * 300 threads through the thread table (more than 255), each event naming
 * its key: read back, every event has its own name and thread, so
 * every re-registration came before its use.
 */
static void test_tables(void)
{
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;
	char name[16];
	uint32_t k, nev = 0;
	int got;

	start();
	prelude();
	CHECK_EQ(mt_fxtw_str_pin(&w, 2), 0);
	CHECK_EQ(mt_fxtw_string(&w, 1, "a", 1), 0);
	CHECK_EQ(mt_fxtw_string(&w, 2, "b", 1), 0);
	CHECK_EQ(mt_fxtw_str_pin(&w, 3), MT_EINVAL);
	for (k = 1; k <= 80000; k++) {
		uint32_t key = (k * 7919u) % 40000 + 1, th = k % 300;
		struct mt_fxtw_event ev = { .ts = k };
		int idx, n = snprintf(name, sizeof(name), "s%u", key);

		idx = (int)mt_fxtw_str_find(&w, key);
		if (!idx)
			idx = mt_fxtw_str_add(&w, key, name, (size_t)n);
		CHECK(idx > 2 && idx <= MT_FXTW_STRINGS);
		got = mt_fxtw_thread_ref(&w, th, 1000 + th, 2000 + th);
		CHECK(got >= 1 && got <= MT_FXTW_THREADS);
		ev.thread.index = (unsigned)got;
		ev.name = MT_FXTW_INDEX((unsigned)idx);
		CHECK_EQ(mt_fxtw_instant(&w, &ev), 0);
	}
	CHECK(w.evictions > 0);
	CHECK(w.thread_records > 300);
	/* a forgotten key gets an index of its own again */
	k = (80000u * 7919u) % 40000 + 1;
	CHECK(mt_fxtw_str_find(&w, k) > 0);
	mt_fxtw_str_forget(&w, k);
	CHECK_EQ(mt_fxtw_str_find(&w, k), 0);
	CHECK_EQ(mt_fxtw_str_add(&w, k, "x", 1) > 2, 1);
	CHECK_EQ(mt_fxtw_str_add(&w, k, "x", 1), MT_EINVAL);
	CHECK_EQ(mt_fxtw_str_add(&w, 0, "x", 1), MT_EINVAL);
	CHECK_EQ(mt_fxtw_str_add(&w, 5, "", 0), MT_EINVAL);

	check_clean();
	mt_fxt_reader_init_mem(&r, out.p, out.len);
	while ((got = mt_fxt_next(&r, &rec)) == 1) {
		uint32_t key, th;

		if (rec.type != MT_FXT_EVENT)
			continue;
		k = (uint32_t)rec.u.event.ts;
		key = (k * 7919u) % 40000 + 1;
		th = k % 300;
		snprintf(name, sizeof(name), "s%u", key);
		CHECK_STR(rec.u.event.name.p, name);
		CHECK_EQ(rec.u.event.thread.tid, 2000 + th);
		CHECK_EQ(rec.u.event.thread.pid, 1000 + th);
		nev++;
	}
	CHECK_EQ(got, 0);
	CHECK_EQ(nev, 80000);
	mt_fxt_reader_release(&r);
	mt_fxtw_release(&w);
}

/* The clock: a full table evicts the first index not used since the hand
 * last passed. */
static void test_clock(void)
{
	uint32_t k;

	start();
	for (k = 1; k <= MT_FXTW_STRINGS; k++)
		CHECK_EQ(mt_fxtw_str_add(&w, k, "s", 1), (int)k);
	CHECK_EQ(w.evictions, 0);
	/* every index used: the hand clears them all and takes index 1 */
	CHECK_EQ(mt_fxtw_str_add(&w, 40000, "t", 1), 1);
	CHECK_EQ(mt_fxtw_str_find(&w, 1), 0);
	CHECK_EQ(w.evictions, 1);
	/* index 2 used again: 3 goes next */
	CHECK_EQ(mt_fxtw_str_find(&w, 2), 2);
	CHECK_EQ(mt_fxtw_str_add(&w, 40001, "u", 1), 3);
	CHECK_EQ(mt_fxtw_str_find(&w, 3), 0);
	mt_fxtw_release(&w);
}

static int fail_write(void *ctx, const void *p, size_t n)
{
	++*(int *)ctx;
	return MT_EIO;
}

static int count_write(void *ctx, const void *p, size_t n)
{
	*(size_t *)ctx += n;
	return 0;
}

/* every limit refused with nothing written; a write error returned */
static void test_errors(void)
{
	static char big[40000];
	struct mt_fxtw_arg a[16];
	struct mt_fxtw_event ev = { .thread = { .index = 1 } };
	size_t n = 0;
	int calls = 0;
	unsigned i;

	start();
	CHECK_EQ(mt_fxtw_string(&w, 0, "a", 1), MT_EINVAL);
	CHECK_EQ(mt_fxtw_string(&w, 32768, "a", 1), MT_EINVAL);
	CHECK_EQ(mt_fxtw_string(&w, 1, big, 0x8000), MT_EINVAL);
	CHECK_EQ(mt_fxtw_string(&w, 1, big, 32753), MT_ETOOBIG);
	CHECK_EQ(mt_fxtw_thread(&w, 0, 1, 1), MT_EINVAL);
	CHECK_EQ(mt_fxtw_thread(&w, 256, 1, 1), MT_EINVAL);
	CHECK_EQ(mt_fxtw_provider(&w, 0, big, 256), MT_EINVAL);
	ev.thread.index = 256;
	CHECK_EQ(mt_fxtw_instant(&w, &ev), MT_EINVAL);
	ev.thread.index = 1;
	CHECK_EQ(mt_fxtw_event(&w, 11, &ev, 0), MT_EINVAL);
	ev.name = MT_FXTW_INDEX(32768);
	CHECK_EQ(mt_fxtw_instant(&w, &ev), MT_EINVAL);
	ev.name = MT_FXTW_INLINE(big, 0x8000);
	CHECK_EQ(mt_fxtw_instant(&w, &ev), MT_EINVAL);
	ev.name = MT_FXTW_INLINE(big, 30000);
	ev.cat = MT_FXTW_INLINE(big, 30000);
	CHECK_EQ(mt_fxtw_instant(&w, &ev), MT_ETOOBIG);
	ev.cat = ev.name = MT_FXTW_INDEX(0);
	for (i = 0; i < 16; i++)
		a[i] = (struct mt_fxtw_arg){ .type = MT_FXT_ARG_NULL };
	ev.args = a;
	ev.nargs = 16;
	CHECK_EQ(mt_fxtw_instant(&w, &ev), MT_EINVAL);
	ev.nargs = 1;
	a[0].type = MT_FXT_ARG_BLOB;
	CHECK_EQ(mt_fxtw_instant(&w, &ev), MT_EINVAL);
	a[0].type = MT_FXT_ARG_STRING;
	a[0].s = MT_FXTW_INLINE(big, 0x8000);
	CHECK_EQ(mt_fxtw_instant(&w, &ev), MT_EINVAL);
	a[0].raw = (unsigned char *)big;
	a[0].raw_len = 12;
	CHECK_EQ(mt_fxtw_instant(&w, &ev), MT_EINVAL);
	CHECK_EQ(mt_fxtw_kobj(&w, 256, 1, MT_FXTW_INDEX(0), NULL, 0), MT_EINVAL);
	CHECK_EQ(out.len, 0);
	CHECK_EQ(w.string_records, 0);
	CHECK_EQ(w.thread_records, 0);
	mt_fxtw_release(&w);

	/* the write function: one call per record, its error returned */
	poison(&w);
	mt_fxtw_init(&w, fail_write, &calls);
	CHECK_EQ(mt_fxtw_magic(&w), MT_EIO);
	CHECK_EQ(mt_fxtw_string(&w, 1, "a", 1), MT_EIO);
	CHECK_EQ(w.string_records, 0);
	CHECK_EQ(mt_fxtw_str_add(&w, 9, "a", 1), MT_EIO);
	CHECK_EQ(mt_fxtw_str_find(&w, 9), 0);
	CHECK_EQ(mt_fxtw_thread_ref(&w, 0, 1, 1), MT_EIO);
	CHECK_EQ(calls, 4);
	mt_fxtw_release(&w);
	poison(&w);
	mt_fxtw_init(&w, count_write, &n);
	CHECK_EQ(mt_fxtw_magic(&w), 0);
	CHECK_EQ(mt_fxtw_thread_ref(&w, 0, 1, 1), 1);
	CHECK_EQ(mt_fxtw_thread_ref(&w, 0, 1, 1), 1);
	CHECK_EQ(n, 8 + 24);
	mt_fxtw_release(&w);
	/* release twice, and of a writer never used */
	mt_fxtw_release(&w);
	mt_buf_release(&out);
}

int main(void)
{
	RUN(test_examples);
	RUN(test_roundtrip);
	RUN(test_again);
	RUN(test_tables);
	RUN(test_clock);
	RUN(test_errors);
	return unit_done();
}
