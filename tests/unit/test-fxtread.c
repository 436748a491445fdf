/*
 * Unit tests for the FXT reader and checker (common/fxtread.h), on FXT
 * buffers built by hand word by word. The worked examples of
 * docs/fxt.md 1.5-1.11 are used byte for byte.
 */
#include <stdint.h>
#include <stdlib.h>

#include "buf.h"
#include "err.h"
#include "fxtcheck.h"
#include "wire.h"
#include "unit.h"
#include "banned.h"

/* ---- building FXT by hand ---- */

static struct mt_buf f;

static void reset(void)
{
	mt_buf_release(&f);
}

static void w64(uint64_t w)
{
	unsigned char b[8];

	mt_put64(b, w);
	if (mt_buf_add(&f, b, 8))
		abort();
}

static void wbytes(const void *p, size_t len)
{
	static const unsigned char zero[8];

	if (mt_buf_add(&f, p, len) || mt_buf_add(&f, zero, (8 - len % 8) % 8))
		abort();
}

static void wstr(const char *s)
{
	wbytes(s, strlen(s));
}

/* Start a record or argument whose size field ([4..15]) is patched by
 * done() from what was written since. */
static size_t open_rec(uint64_t h)
{
	size_t at = f.len;

	w64(h);
	return at;
}

static void done(size_t at)
{
	uint64_t h = mt_get64((unsigned char *)f.p + at);

	h |= (uint64_t)((f.len - at) / 8) << 4;
	mt_put64((unsigned char *)f.p + at, h);
}

static void magic(void)
{
	w64(MT_FXT_MAGIC);
}

static void provider(uint32_t id, const char *name)
{
	size_t at = open_rec(0 | 1u << 16 | (uint64_t)id << 20 |
			     (uint64_t)strlen(name) << 52);

	wstr(name);
	done(at);
}

static void init_rec(uint64_t ticks)
{
	w64(0x21);
	w64(ticks);
}

static void string_rec(unsigned idx, const char *s)
{
	size_t at = open_rec(2 | (uint64_t)idx << 16 |
			     (uint64_t)strlen(s) << 32);

	wstr(s);
	done(at);
}

static void thread_rec(unsigned idx, uint64_t pid, uint64_t tid)
{
	w64(0x33 | (uint64_t)idx << 16);
	w64(pid);
	w64(tid);
}

/* magic, provider info, init 1e9: what the project writes first */
static void prelude(void)
{
	reset();
	magic();
	provider(1, "test");
	init_rec(MT_FXT_TICKS_NS);
}

/* An event with indexed thread and strings and no arguments; end is the
 * end timestamp of a complete event, else unused. */
static void ev(unsigned type, unsigned thread, unsigned cat, unsigned name,
	       uint64_t ts, uint64_t end)
{
	size_t at = open_rec(4 | (uint64_t)type << 16 |
			     (uint64_t)thread << 24 | (uint64_t)cat << 32 |
			     (uint64_t)name << 48);

	w64(ts);
	if (type == MT_FXT_EV_COMPLETE)
		w64(end);
	done(at);
}

static void begin(unsigned name, uint64_t ts)
{
	ev(MT_FXT_EV_BEGIN, 1, 1, name, ts, 0);
}

static void end(uint64_t ts)
{
	ev(MT_FXT_EV_END, 1, 1, 2, ts, 0);
}

static void complete(unsigned name, uint64_t ts, uint64_t e)
{
	ev(MT_FXT_EV_COMPLETE, 1, 1, name, ts, e);
}

static void instant(unsigned name, uint64_t ts)
{
	ev(MT_FXT_EV_INSTANT, 1, 1, name, ts, 0);
}

/* prelude plus thread 1 = (100, 101) and strings 1 "cat", 2..9 "s2".."s9" */
static void std_prelude(void)
{
	unsigned i;

	prelude();
	thread_rec(1, 100, 101);
	string_rec(1, "cat");
	for (i = 2; i <= 9; i++) {
		char s[4] = { 's', (char)('0' + i), 0, 0 };

		string_rec(i, s);
	}
}

/* ---- checking ---- */

static struct mt_fxt_check chk;

static void run_check(void)
{
	poison(&chk);
	mt_fxt_check_init(&chk);
	CHECK_EQ(mt_fxt_check_mem(&chk, f.p, f.len), 0);
}

/* Every problem count is 0 but the one named (which must be want). */
static void only_problem(int kind, uint64_t want)
{
	int k;

	for (k = 0; k < MT_FXT_NPROBLEMS; k++) {
		uint64_t n = chk.count[k];

		if (k == kind)
			CHECK_EQ(n, want);
		else if (n) {
			fprintf(stderr, "%s: unexpected %s %llu: %s\n",
				unit_case, mt_fxt_problem_name(k),
				(unsigned long long)n, chk.ex[k][0].what);
			unit_case_failed = 1;
		}
	}
}

static void no_problem(void)
{
	only_problem(-1, 0);
}

/* slice i is (start, end, depth, name); end -1: did not end */
static void slice_is(size_t i, int64_t start, int64_t e, unsigned depth,
		     const char *name)
{
	const struct mt_fxt_slice *s;

	CHECK(i < chk.nslices);
	if (i >= chk.nslices)
		return;
	s = &chk.slices[i];
	CHECK_EQ(s->start, start);
	if (e < 0)
		CHECK_EQ(s->dur, -1);
	else
		CHECK_EQ(s->start + s->dur, e);
	CHECK_EQ(s->depth, depth);
	CHECK_STR(mt_fxt_check_str(&chk, s->name, NULL), name);
}

/* ---- the reader ---- */

static void test_null(void)
{
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;

	poison(&r);
	mt_fxt_reader_init_mem(&r, NULL, 0);
	CHECK_EQ(mt_fxt_next(&r, &rec), 0);
	CHECK_EQ(mt_fxt_next(&r, &rec), 0);
	mt_fxt_reader_release(&r);
	mt_fxt_reader_release(&r);
	poison(&r);
	mt_fxt_reader_init_mem(&r, NULL, 0);
	mt_fxt_reader_release(&r);

	poison(&chk);
	mt_fxt_check_init(&chk);
	mt_fxt_check_release(&chk);
	mt_fxt_check_release(&chk);

	/* an empty input: no magic, nothing else */
	run_check();
	only_problem(MT_FXT_BAD_MAGIC, 1);
	CHECK_EQ(chk.nrecords, 0);
	CHECK_EQ(chk.nslices, 0);
	mt_fxt_check_release(&chk);

	CHECK(mt_fxt_problem_name(-1) == NULL);
	CHECK(mt_fxt_problem_name(MT_FXT_NPROBLEMS) == NULL);
	CHECK_STR(mt_fxt_problem_name(MT_FXT_BAD_MAGIC), "bad_magic");
	CHECK_STR(mt_fxt_problem_name(MT_FXT_DEPTH_OVER_512),
		  "depth_over_512");
}

/* fxt.md 1.11, byte for byte */
static const unsigned char minimal[] = {
	0x10, 0x00, 0x04, 0x46, 0x78, 0x54, 0x16, 0x00,
	0x20, 0x00, 0x01, 0x00, 0x00, 0x00, 0x40, 0x00,
	0x64, 0x65, 0x6d, 0x6f, 0x00, 0x00, 0x00, 0x00,
	0x21, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0xca, 0x9a, 0x3b, 0x00, 0x00, 0x00, 0x00,
	0x33, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xd2, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xd3, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x44, 0x00, 0x02, 0x01, 0x03, 0x80, 0x04, 0x80,
	0xe8, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x63, 0x61, 0x74, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x6d, 0x61, 0x69, 0x6e, 0x00, 0x00, 0x00, 0x00,
	0x44, 0x00, 0x03, 0x01, 0x03, 0x80, 0x04, 0x80,
	0x88, 0x13, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x63, 0x61, 0x74, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x6d, 0x61, 0x69, 0x6e, 0x00, 0x00, 0x00, 0x00,
};

static void test_minimal(void)
{
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;

	poison(&r);
	mt_fxt_reader_init_mem(&r, minimal, sizeof(minimal));

	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_FXT_METADATA);
	CHECK_EQ(rec.header, MT_FXT_MAGIC);
	CHECK_EQ(rec.offset, 0);
	CHECK_EQ(rec.size, 8);
	CHECK_EQ(rec.u.meta.type, MT_FXT_META_TRACE_INFO);
	CHECK_EQ(rec.u.meta.info_type, 0);
	CHECK(!rec.bad);

	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.offset, 8);
	CHECK_EQ(rec.size, 16);
	CHECK_EQ(rec.u.meta.type, MT_FXT_META_PROVIDER_INFO);
	CHECK_EQ(rec.u.meta.provider_id, 0);
	CHECK_STR(rec.u.meta.name.p, "demo");
	CHECK(rec.provider && !strcmp(rec.provider->name, "demo"));
	CHECK_EQ(rec.provider->has_init, 0);

	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_FXT_INIT);
	CHECK_EQ(rec.u.ticks_per_second, 1000000000);
	CHECK_EQ(rec.provider->has_init, 1);

	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_FXT_THREAD);
	CHECK_EQ(rec.u.thread.index, 1);
	CHECK_EQ(rec.u.thread.pid, 1234);
	CHECK_EQ(rec.u.thread.tid, 1235);

	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_FXT_EVENT);
	CHECK_EQ(rec.offset, 64);
	CHECK_EQ(rec.size, 32);
	CHECK_EQ(rec.u.event.type, MT_FXT_EV_BEGIN);
	CHECK_EQ(rec.u.event.ts, 1000);
	CHECK_EQ(rec.u.event.thread.ref, 1);
	CHECK_EQ(rec.u.event.thread.pid, 1234);
	CHECK_EQ(rec.u.event.thread.tid, 1235);
	CHECK_EQ(rec.u.event.cat.ref, 0x8003);
	CHECK_STR(rec.u.event.cat.p, "cat");
	CHECK_EQ(rec.u.event.cat.len, 3);
	CHECK_STR(rec.u.event.name.p, "main");
	CHECK_EQ(rec.u.event.nargs, 0);
	CHECK_EQ(rec.undefined, 0);

	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.u.event.type, MT_FXT_EV_END);
	CHECK_EQ(rec.u.event.ts, 5000);
	CHECK_EQ(mt_fxt_reader_offset(&r), 96);

	CHECK_EQ(mt_fxt_next(&r, &rec), 0);
	CHECK_EQ(mt_fxt_next(&r, &rec), 0);
	mt_fxt_reader_release(&r);

	reset();
	wbytes(minimal, sizeof(minimal));
	run_check();
	no_problem();
	CHECK_EQ(chk.nrecords, 6);
	CHECK_EQ(chk.nslices, 1);
	CHECK_EQ(chk.nthreads, 1);
	slice_is(0, 1000, 5000, 0, "main");
	CHECK_EQ(chk.slices[0].pid, 1234);
	CHECK_EQ(chk.slices[0].tid, 1235);
	CHECK_EQ(chk.slices[0].offset, 64);
	CHECK_EQ(chk.slices[0].ev_type, MT_FXT_EV_BEGIN);
	CHECK_STR(mt_fxt_check_str(&chk, chk.slices[0].cat, NULL), "cat");
	mt_fxt_check_release(&chk);
}

/* fxt.md 1.5 - 1.9: the string, thread, event and kernel object examples */
static void test_worked_examples(void)
{
	static const unsigned char fn[] = { 0x22, 0x00, 0x01, 0x00, 0x02,
					    0x00, 0x00, 0x00, 0x66, 0x6e,
					    0, 0, 0, 0, 0, 0 };
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;
	int i;

	prelude();
	wbytes(fn, sizeof(fn));                 /* string 1 = "fn" */
	w64(0x0000000000010033);                 /* thread 1 */
	w64(4321);
	w64(4322);
	string_rec(2, "main");
	string_rec(4, "process");
	string_rec(5, "worker");
	w64(0x0002000101020024);                 /* begin */
	w64(100);
	w64(0x0002000101030024);                 /* end */
	w64(200);
	w64(0x0002000101040034);                 /* complete */
	w64(300);
	w64(400);
	w64(0x0000010005020047);                 /* thread object */
	w64(4322);
	w64(0x0000000000040028);                 /* process = */
	w64(4321);

	mt_fxt_reader_init_mem(&r, f.p, f.len);
	for (i = 0; i < 3; i++)
		CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_FXT_STRING);
	CHECK_EQ(rec.header, 0x0000000200010022);
	CHECK_EQ(rec.u.string.index, 1);
	CHECK_STR(rec.u.string.str.p, "fn");
	CHECK_EQ(rec.u.string.str.len, 2);
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_FXT_THREAD);
	for (i = 0; i < 3; i++)
		CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.u.event.type, MT_FXT_EV_BEGIN);
	CHECK_STR(rec.u.event.cat.p, "fn");
	CHECK_STR(rec.u.event.name.p, "main");
	CHECK_EQ(rec.u.event.thread.pid, 4321);
	CHECK_EQ(rec.size, 16);
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.u.event.type, MT_FXT_EV_END);
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.u.event.type, MT_FXT_EV_COMPLETE);
	CHECK_EQ(rec.u.event.ts, 300);
	CHECK_EQ(rec.u.event.end_ts, 400);
	CHECK_EQ(rec.size, 24);
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_FXT_KOBJ);
	CHECK_EQ(rec.u.kobj.obj_type, MT_FXT_OBJ_THREAD);
	CHECK_EQ(rec.u.kobj.koid, 4322);
	CHECK_STR(rec.u.kobj.name.p, "worker");
	CHECK_EQ(rec.u.kobj.nargs, 1);
	CHECK_STR(rec.u.kobj.args[0].name.p, "process");
	CHECK_EQ(rec.u.kobj.args[0].type, MT_FXT_ARG_KOID);
	CHECK_EQ(rec.u.kobj.args[0].size, 2);
	CHECK_EQ(rec.u.kobj.args[0].u, 4321);
	CHECK_EQ(mt_fxt_next(&r, &rec), 0);
	mt_fxt_reader_release(&r);

	run_check();
	no_problem();
	CHECK_EQ(chk.nslices, 2);
	slice_is(0, 100, 200, 0, "main");
	slice_is(1, 300, 400, 0, "main");
	CHECK_EQ(chk.nnames, 1);
	CHECK_EQ(chk.names[0].thread, 1);
	CHECK_EQ(chk.names[0].pid, 4321);
	CHECK_EQ(chk.names[0].tid, 4322);
	CHECK_STR(mt_fxt_check_str(&chk, chk.names[0].name, NULL), "worker");
	mt_fxt_check_release(&chk);
}

/* An event with one argument of every type, names inline and indexed. */
static void test_args(void)
{
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;
	const struct mt_fxt_arg *a;
	const struct mt_fxt_slice_arg *sa;
	double d = 2.5;
	uint64_t dw, h;
	size_t at, arg;

	memcpy(&dw, &d, 8);
	std_prelude();
	string_rec(20, "indexed value");
	string_rec(21, "iname");
	at = open_rec(4 | (uint64_t)MT_FXT_EV_COMPLETE << 16 | 11ull << 20 |
		      1ull << 24 | 1ull << 32 | 2ull << 48);
	w64(10);
	w64(0x20 | 0x8001ull << 16);                      /* null "n" */
	wstr("n");
	w64(0x11 | 21ull << 16 | (uint64_t)(uint32_t)-5 << 32); /* int32 */
	arg = open_rec(2 | 0x8002ull << 16 | 0xfffffff0ull << 32);
	wstr("u3");
	done(arg);
	w64(0x23 | 21ull << 16);                          /* int64 */
	w64((uint64_t)-1234567890123ll);
	w64(0x24 | 21ull << 16);                          /* uint64 */
	w64(0xfedcba9876543210ull);
	w64(0x25 | 21ull << 16);                          /* double */
	w64(dw);
	arg = open_rec(6 | 0x8001ull << 16 | 0x8005ull << 32);
	wstr("s");
	wstr("hello");
	done(arg);
	w64(0x16 | 21ull << 16 | 20ull << 32);            /* string, indexed */
	w64(0x27 | 21ull << 16);                          /* pointer */
	w64(0xabcd);
	w64(0x28 | 21ull << 16);                          /* koid */
	w64(77);
	w64(0x19 | 21ull << 16 | 1ull << 32);             /* bool */
	w64(20);                                          /* end ts */
	done(at);

	mt_fxt_reader_init_mem(&r, f.p, f.len);
	while (mt_fxt_next(&r, &rec) == 1 && rec.type != MT_FXT_EVENT)
		;
	CHECK_EQ(rec.type, MT_FXT_EVENT);
	CHECK(!rec.bad);
	CHECK_EQ(rec.u.event.nargs, 11);
	CHECK_EQ(rec.u.event.end_ts, 20);
	a = rec.u.event.args;
	CHECK_EQ(a[0].type, MT_FXT_ARG_NULL);
	CHECK_STR(a[0].name.p, "n");
	CHECK_EQ(a[0].size, 2);
	CHECK_EQ(a[1].type, MT_FXT_ARG_INT32);
	CHECK_STR(a[1].name.p, "iname");
	CHECK_EQ(a[1].i, -5);
	CHECK_EQ(a[2].type, MT_FXT_ARG_UINT32);
	CHECK_STR(a[2].name.p, "u3");
	CHECK_EQ(a[2].u, 0xfffffff0u);
	CHECK_EQ(a[2].i, 0xfffffff0ll);
	CHECK_EQ(a[3].i, -1234567890123ll);
	CHECK_EQ(a[4].u, 0xfedcba9876543210ull);
	CHECK(a[5].d == 2.5);
	CHECK_EQ(a[6].type, MT_FXT_ARG_STRING);
	CHECK_STR(a[6].s.p, "hello");
	CHECK_EQ(a[6].s.ref, 0x8005);
	CHECK_EQ(a[6].size, 3);
	CHECK_STR(a[7].s.p, "indexed value");
	CHECK_EQ(a[8].type, MT_FXT_ARG_POINTER);
	CHECK_EQ(a[8].u, 0xabcd);
	CHECK_EQ(a[9].type, MT_FXT_ARG_KOID);
	CHECK_EQ(a[9].u, 77);
	CHECK_EQ(a[10].type, MT_FXT_ARG_BOOL);
	CHECK_EQ(a[10].u, 1);
	mt_fxt_reader_release(&r);

	run_check();
	no_problem();
	CHECK_EQ(chk.nslices, 1);
	slice_is(0, 10, 20, 0, "s2");
	CHECK_EQ(chk.slices[0].nargs, 11);
	sa = chk.args + chk.slices[0].arg0;
	CHECK_STR(mt_fxt_check_str(&chk, sa[0].name, NULL), "n");
	CHECK_EQ(sa[1].i, -5);
	CHECK_EQ(sa[4].u, 0xfedcba9876543210ull);
	CHECK(sa[5].d == 2.5);
	CHECK_STR(mt_fxt_check_str(&chk, sa[6].s, NULL), "hello");
	CHECK_STR(mt_fxt_check_str(&chk, sa[7].s, NULL), "indexed value");
	CHECK_EQ(sa[10].type, MT_FXT_ARG_BOOL);
	mt_fxt_check_release(&chk);

	/* a blob argument (type 10): decoded, counted as a type no one but
	 * Perfetto reads */
	std_prelude();
	at = open_rec(4 | 1ull << 20 | 1ull << 24 | 1ull << 32 | 2ull << 48);
	w64(10);
	h = 10 | 0x8001ull << 16 | 3ull << 32;
	arg = open_rec(h);
	wstr("b");
	wbytes("\x01\x00\x02", 3);
	done(arg);
	done(at);
	mt_fxt_reader_init_mem(&r, f.p, f.len);
	while (mt_fxt_next(&r, &rec) == 1 && rec.type != MT_FXT_EVENT)
		;
	CHECK(!rec.bad);
	CHECK_EQ(rec.u.event.args[0].type, MT_FXT_ARG_BLOB);
	CHECK_EQ(rec.u.event.args[0].u, 3);
	CHECK_EQ(rec.u.event.args[0].s.len, 3);
	CHECK(!memcmp(rec.u.event.args[0].s.p, "\x01\x00\x02", 3));
	mt_fxt_reader_release(&r);
	run_check();
	only_problem(MT_FXT_BAD_ARG_TYPE, 1);
	CHECK_EQ(chk.nslices, 1); /* an instant */
	slice_is(0, 10, 10, 0, "s2");
	mt_fxt_check_release(&chk);
}

/* Inline thread, counter and async and flow ids, a process object. */
static void test_inline_and_others(void)
{
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;
	size_t at;

	std_prelude();
	at = open_rec(4 | (uint64_t)MT_FXT_EV_BEGIN << 16 | 0x8002ull << 32 |
		      0x8004ull << 48);
	w64(5);
	w64(7);               /* pid */
	w64(8);               /* tid */
	wstr("ca");
	wstr("func");
	done(at);
	at = open_rec(4 | (uint64_t)MT_FXT_EV_END << 16);  /* empty strings */
	w64(9);
	w64(7);
	w64(8);
	done(at);
	at = open_rec(4 | (uint64_t)MT_FXT_EV_COUNTER << 16 | 1ull << 20 |
		      1ull << 24 | 1ull << 32 | 2ull << 48);
	w64(10);
	w64(0x11 | 3ull << 16 | 42ull << 32);
	w64(99);              /* counter id */
	done(at);
	at = open_rec(4 | (uint64_t)MT_FXT_EV_FLOW_STEP << 16 | 1ull << 24 |
		      1ull << 32 | 2ull << 48);
	w64(11);
	w64(1234);
	done(at);
	at = open_rec(7 | 1ull << 16 | 0x8004ull << 24);   /* process */
	w64(7);
	wstr("prog");
	done(at);

	mt_fxt_reader_init_mem(&r, f.p, f.len);
	while (mt_fxt_next(&r, &rec) == 1 && rec.type != MT_FXT_EVENT)
		;
	CHECK_EQ(rec.u.event.thread.ref, 0);
	CHECK_EQ(rec.u.event.thread.pid, 7);
	CHECK_EQ(rec.u.event.thread.tid, 8);
	CHECK_STR(rec.u.event.cat.p, "ca");
	CHECK_STR(rec.u.event.name.p, "func");
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.u.event.cat.ref, 0);
	CHECK_STR(rec.u.event.cat.p, "");
	CHECK_STR(rec.u.event.name.p, "");
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.u.event.type, MT_FXT_EV_COUNTER);
	CHECK_EQ(rec.u.event.id, 99);
	CHECK_EQ(rec.u.event.args[0].i, 42);
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.u.event.type, MT_FXT_EV_FLOW_STEP);
	CHECK_EQ(rec.u.event.id, 1234);
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_FXT_KOBJ);
	CHECK_EQ(rec.u.kobj.obj_type, MT_FXT_OBJ_PROCESS);
	CHECK_STR(rec.u.kobj.name.p, "prog");
	CHECK_EQ(mt_fxt_next(&r, &rec), 0);
	mt_fxt_reader_release(&r);

	run_check();
	no_problem();
	CHECK_EQ(chk.nslices, 1);
	CHECK_EQ(chk.nthreads, 1);
	slice_is(0, 5, 9, 0, "func");
	CHECK_EQ(chk.slices[0].pid, 7);
	CHECK_EQ(chk.slices[0].tid, 8);
	CHECK_EQ(chk.nnames, 1);
	CHECK_EQ(chk.names[0].thread, 0);
	CHECK_EQ(chk.names[0].pid, 7);
	mt_fxt_check_release(&chk);
}

/* A string index and a thread index registered again mid-file: each event
 * keeps the value its index had at its own place in the file. */
static void test_reregister(void)
{
	std_prelude();
	string_rec(12, "first");
	complete(12, 10, 20);
	string_rec(12, "second");
	complete(12, 30, 40);
	thread_rec(1, 200, 201);   /* thread 1 was (100, 101) */
	complete(12, 50, 60);
	string_rec(12, "third");
	thread_rec(1, 100, 101);
	complete(12, 70, 80);
	run_check();
	no_problem();
	CHECK_EQ(chk.nslices, 4);
	CHECK_EQ(chk.nthreads, 2);
	slice_is(0, 10, 20, 0, "first");
	slice_is(1, 30, 40, 0, "second");
	slice_is(2, 70, 80, 0, "third");
	slice_is(3, 50, 60, 0, "second");
	CHECK_EQ(chk.slices[0].pid, 100);
	CHECK_EQ(chk.slices[2].pid, 100);
	CHECK_EQ(chk.slices[3].pid, 200);
	CHECK_EQ(chk.slices[3].tid, 201);
	mt_fxt_check_release(&chk);
}

/* Providers: each has its own tables; a section switches back. */
static void test_providers(void)
{
	std_prelude();
	provider(2, "other");
	init_rec(MT_FXT_TICKS_NS);
	thread_rec(1, 300, 301);
	string_rec(1, "c2");
	string_rec(2, "p2");
	complete(2, 10, 20);
	w64(0x10 | 2u << 16 | 1ull << 20);   /* section: back to provider 1 */
	complete(2, 30, 40);
	run_check();
	no_problem();
	CHECK_EQ(chk.nslices, 2);
	slice_is(0, 30, 40, 0, "s2");
	CHECK_EQ(chk.slices[0].pid, 100);
	slice_is(1, 10, 20, 0, "p2");
	CHECK_EQ(chk.slices[1].pid, 300);
	mt_fxt_check_release(&chk);

	/* with no provider info at all, provider 0 is used (fine) */
	reset();
	magic();
	init_rec(MT_FXT_TICKS_NS);
	thread_rec(1, 1, 2);
	string_rec(1, "c");
	string_rec(2, "n");
	complete(2, 1, 2);
	run_check();
	no_problem();
	CHECK_EQ(chk.nslices, 1);
	mt_fxt_check_release(&chk);
}

/* ---- one buffer per problem ---- */

static void test_bad_magic(void)
{
	std_prelude();
	mt_put64((unsigned char *)f.p, 0x0016547847040010ull);
	complete(2, 1, 2);
	run_check();
	only_problem(MT_FXT_BAD_MAGIC, 1);
	CHECK_EQ(chk.ex[MT_FXT_BAD_MAGIC][0].offset, 0);
	CHECK_EQ(chk.nslices, 1);
	mt_fxt_check_release(&chk);

	/* fewer than 8 bytes */
	reset();
	wbytes("\x10\x00\x04", 3);
	f.len = 3;
	run_check();
	CHECK_EQ(chk.count[MT_FXT_BAD_MAGIC], 1);
	CHECK_EQ(chk.count[MT_FXT_TRUNCATED], 1);
	mt_fxt_check_release(&chk);
}

static void test_size_zero(void)
{
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;
	size_t bad;

	std_prelude();
	complete(2, 1, 2);
	bad = f.len;
	w64(0x0002000101040004ull);  /* a complete event of size 0 */
	w64(3);
	w64(4);
	complete(3, 5, 6);
	mt_fxt_reader_init_mem(&r, f.p, f.len);
	while (mt_fxt_next(&r, &rec) == 1)
		;
	CHECK_EQ(mt_fxt_next(&r, &rec), MT_ECORRUPT);
	CHECK_EQ(mt_fxt_next(&r, &rec), MT_ECORRUPT);
	CHECK_EQ(mt_fxt_reader_offset(&r), bad);
	mt_fxt_reader_release(&r);
	run_check();
	only_problem(MT_FXT_SIZE_ZERO, 1);
	CHECK_EQ(chk.ex[MT_FXT_SIZE_ZERO][0].offset, bad);
	CHECK_EQ(chk.nslices, 1);   /* the import stops there */
	mt_fxt_check_release(&chk);
}

static void test_truncated(void)
{
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;
	size_t last;

	std_prelude();
	complete(2, 1, 2);
	last = f.len;
	complete(3, 5, 6);
	f.len -= 8;    /* the end word is missing */
	mt_fxt_reader_init_mem(&r, f.p, f.len);
	while (mt_fxt_next(&r, &rec) == 1)
		;
	CHECK_EQ(mt_fxt_next(&r, &rec), MT_ETRUNCATED);
	CHECK_EQ(mt_fxt_reader_offset(&r), last);
	mt_fxt_reader_release(&r);
	run_check();
	only_problem(MT_FXT_TRUNCATED, 1);
	CHECK_EQ(chk.ex[MT_FXT_TRUNCATED][0].offset, last);
	CHECK_EQ(chk.nslices, 1);
	mt_fxt_check_release(&chk);

	/* a partial header */
	f.len = last + 5;
	run_check();
	only_problem(MT_FXT_TRUNCATED, 1);
	mt_fxt_check_release(&chk);
}

static void test_bad_record(void)
{
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;
	size_t at;

	std_prelude();
	/* the inline name says 20 bytes, the record holds 8 */
	at = open_rec(4 | (uint64_t)MT_FXT_EV_BEGIN << 16 | 1ull << 24 |
		      1ull << 32 | (0x8000ull | 20) << 48);
	w64(1);
	wstr("short");
	done(at);
	/* an argument of size 0 */
	at = open_rec(4 | (uint64_t)MT_FXT_EV_INSTANT << 16 | 1ull << 20 |
		      1ull << 24 | 1ull << 32 | 2ull << 48);
	w64(2);
	w64(0x1 | 2ull << 16);
	done(at);
	/* a string record too short for its string: not registered */
	w64(2 | 2ull << 4 | 30ull << 16 | 9ull << 32);
	w64(0x6161616161616161ull);
	complete(2, 3, 4);

	mt_fxt_reader_init_mem(&r, f.p, f.len);
	while (mt_fxt_next(&r, &rec) == 1 && rec.type != MT_FXT_EVENT)
		;
	CHECK_EQ(rec.bad, MT_ECORRUPT);
	CHECK_STR(rec.why, "inline name past the end of the record");
	CHECK_EQ(rec.u.event.ts, 1);
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.bad, MT_ECORRUPT);
	CHECK_STR(rec.why, "argument of size 0");
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK_EQ(rec.type, MT_FXT_STRING);
	CHECK(rec.bad);
	CHECK_EQ(mt_fxt_next(&r, &rec), 1);
	CHECK(!rec.bad);
	CHECK_EQ(mt_fxt_next(&r, &rec), 0);
	mt_fxt_reader_release(&r);

	run_check();
	only_problem(MT_FXT_BAD_RECORD, 3);
	CHECK_EQ(chk.nslices, 1);
	mt_fxt_check_release(&chk);
}

static void test_undefined_string(void)
{
	struct mt_fxt_reader r;
	struct mt_fxt_record rec;
	size_t at;

	std_prelude();
	complete(42, 1, 2);                       /* name 42 undefined */
	ev(MT_FXT_EV_COMPLETE, 1, 43, 2, 3, 4);  /* category 43 undefined */
	at = open_rec(4 | (uint64_t)MT_FXT_EV_INSTANT << 16 | 1ull << 20 |
		      1ull << 24 | 1ull << 32 | 2ull << 48);
	w64(5);
	w64(0x16 | 2ull << 16 | 44ull << 32);    /* string value 44 */
	done(at);
	complete(2, 7, 8);

	mt_fxt_reader_init_mem(&r, f.p, f.len);
	while (mt_fxt_next(&r, &rec) == 1 && rec.type != MT_FXT_EVENT)
		;
	CHECK_EQ(rec.undefined, 1);
	CHECK(rec.u.event.name.p == NULL);
	CHECK_EQ(rec.u.event.name.ref, 42);
	CHECK_STR(rec.u.event.cat.p, "cat");
	mt_fxt_reader_release(&r);

	run_check();
	only_problem(MT_FXT_UNDEFINED_STRING, 3);
	CHECK_EQ(chk.nslices, 1);
	slice_is(0, 7, 8, 0, "s2");
	mt_fxt_check_release(&chk);
}

static void test_undefined_thread(void)
{
	std_prelude();
	ev(MT_FXT_EV_COMPLETE, 7, 1, 2, 1, 2);
	run_check();
	only_problem(MT_FXT_UNDEFINED_THREAD, 1);
	CHECK_EQ(chk.nslices, 1);
	CHECK_EQ(chk.slices[0].pid, 0);
	CHECK_EQ(chk.slices[0].tid, 0);
	mt_fxt_check_release(&chk);
}

static void test_bad_record_type(void)
{
	size_t at;

	std_prelude();
	at = open_rec(5 | 0x8001ull << 16 | 3ull << 32 | 3ull << 48);  /* blob */
	wstr("b");
	wstr("xyz");
	done(at);
	at = open_rec(9 | 3ull << 16 | 1ull << 32);                     /* log */
	w64(1);
	wstr("abc");
	done(at);
	w64(0 | 1ull << 4 | 7ull << 16);                  /* metadata type 7 */
	ev(12, 1, 1, 2, 1, 0);                                  /* event 12 */
	complete(2, 1, 2);
	run_check();
	only_problem(MT_FXT_BAD_RECORD_TYPE, 4);
	CHECK_EQ(chk.nslices, 1);
	mt_fxt_check_release(&chk);
}

static void test_provider_missing(void)
{
	std_prelude();
	complete(2, 1, 2);
	w64(0x10 | 2u << 16 | 9ull << 20);   /* section for provider 9 */
	complete(2, 3, 4);                    /* dropped */
	run_check();
	only_problem(MT_FXT_PROVIDER_MISSING, 2);
	CHECK_EQ(chk.nslices, 1);
	mt_fxt_check_release(&chk);
}

static void test_init_missing(void)
{
	reset();
	magic();
	init_rec(MT_FXT_TICKS_NS);    /* before provider info: lost */
	provider(1, "p");
	thread_rec(1, 1, 2);
	string_rec(1, "c");
	string_rec(2, "n");
	complete(2, 1, 2);
	complete(2, 3, 4);
	run_check();
	only_problem(MT_FXT_INIT_MISSING, 1);
	CHECK_EQ(chk.nslices, 2);
	mt_fxt_check_release(&chk);
}

static void test_bad_ticks(void)
{
	reset();
	magic();
	provider(1, "p");
	init_rec(1000000);            /* us */
	thread_rec(1, 1, 2);
	string_rec(1, "c");
	string_rec(2, "n");
	complete(2, 3, 5);
	run_check();
	only_problem(MT_FXT_BAD_TICKS, 1);
	slice_is(0, 3000, 5000, 0, "n");
	mt_fxt_check_release(&chk);

	/* 0 ticks per second: every timestamp overflows */
	reset();
	magic();
	provider(1, "p");
	init_rec(0);
	thread_rec(1, 1, 2);
	string_rec(1, "c");
	string_rec(2, "n");
	complete(2, 3, 5);
	run_check();
	CHECK_EQ(chk.count[MT_FXT_BAD_TICKS], 1);
	CHECK_EQ(chk.count[MT_FXT_TIMESTAMP_OVERFLOW], 1);
	CHECK_EQ(chk.nslices, 0);
	mt_fxt_check_release(&chk);
}

static void test_timestamp_overflow(void)
{
	int64_t ns = 0;

	CHECK_EQ(mt_fxt_ticks_to_ns(5, MT_FXT_TICKS_NS, &ns), 0);
	CHECK_EQ(ns, 5);
	CHECK_EQ(mt_fxt_ticks_to_ns(INT64_MAX, MT_FXT_TICKS_NS, &ns), 0);
	CHECK_EQ(ns, INT64_MAX);
	CHECK_EQ(mt_fxt_ticks_to_ns(1ull << 63, MT_FXT_TICKS_NS, &ns),
		 MT_ERANGE);
	CHECK_EQ(mt_fxt_ticks_to_ns(UINT64_MAX, MT_FXT_TICKS_NS, &ns),
		 MT_ERANGE);
	CHECK_EQ(mt_fxt_ticks_to_ns(1, 0, &ns), MT_ERANGE);
	CHECK_EQ(mt_fxt_ticks_to_ns(3, 1000000, &ns), 0);
	CHECK_EQ(ns, 3000);
	CHECK_EQ(mt_fxt_ticks_to_ns(1ull << 40, 1, &ns), MT_ERANGE);

	std_prelude();
	complete(2, 10, 5);                 /* ends before it starts */
	complete(3, 1ull << 63, 1ull << 63);
	begin(4, 1ull << 63);
	complete(5, 1, 1ull << 63);          /* the end overflows */
	complete(6, 7, 7);                   /* fine: 0 duration */
	run_check();
	only_problem(MT_FXT_TIMESTAMP_OVERFLOW, 4);
	CHECK_EQ(chk.nslices, 1);
	slice_is(0, 7, 7, 0, "s6");
	mt_fxt_check_release(&chk);
}

static void test_koid_truncated(void)
{
	size_t at;

	std_prelude();
	at = open_rec(4 | (uint64_t)MT_FXT_EV_COMPLETE << 16 | 1ull << 32 |
		      2ull << 48);
	w64(1);
	w64((1ull << 32) + 5);
	w64(6);
	w64(2);
	done(at);
	run_check();
	only_problem(MT_FXT_KOID_TRUNCATED, 1);
	CHECK_EQ(chk.slices[0].pid, 5);
	mt_fxt_check_release(&chk);
}

static void test_thread_process_arg(void)
{
	size_t at;

	std_prelude();
	string_rec(10, "process");
	string_rec(11, "main thread");
	/* "process" as a uint64: rejected, no name */
	at = open_rec(7 | 2ull << 16 | 11ull << 24 | 1ull << 40);
	w64(101);
	w64(0x24 | 10ull << 16);
	w64(100);
	done(at);
	/* no "process" at all: the name goes to pid 0 */
	at = open_rec(7 | 2ull << 16 | 0x8002ull << 24);
	w64(102);
	wstr("t2");
	done(at);
	/* right */
	at = open_rec(7 | 2ull << 16 | 0x8002ull << 24 | 1ull << 40);
	w64(103);
	wstr("t3");
	w64(0x28 | 10ull << 16);
	w64(100);
	done(at);
	/* a process, named twice: the last name wins */
	at = open_rec(7 | 1ull << 16 | 0x8001ull << 24);
	w64(100);
	wstr("a");
	done(at);
	at = open_rec(7 | 1ull << 16 | 0x8001ull << 24);
	w64(100);
	wstr("b");
	done(at);
	run_check();
	only_problem(MT_FXT_THREAD_PROCESS_ARG, 2);
	CHECK_EQ(chk.nnames, 3);
	CHECK_EQ(chk.names[0].thread, 1);
	CHECK_EQ(chk.names[0].pid, 0);
	CHECK_EQ(chk.names[0].tid, 102);
	CHECK_STR(mt_fxt_check_str(&chk, chk.names[0].name, NULL), "t2");
	CHECK_EQ(chk.names[1].thread, 0);
	CHECK_EQ(chk.names[1].pid, 100);
	CHECK_STR(mt_fxt_check_str(&chk, chk.names[1].name, NULL), "b");
	CHECK_EQ(chk.names[2].thread, 1);
	CHECK_EQ(chk.names[2].pid, 100);
	CHECK_EQ(chk.names[2].tid, 103);
	CHECK_STR(mt_fxt_check_str(&chk, chk.names[2].name, NULL), "t3");
	mt_fxt_check_release(&chk);
}

/* ---- nesting (fxt.md 2.6) ---- */

static void test_nest_equal_start(void)
{
	/* child first: the parent partially overlaps it and is dropped */
	std_prelude();
	complete(3, 0, 10);     /* child */
	complete(2, 0, 20);     /* parent */
	complete(4, 12, 15);    /* a later child of the parent: top level */
	run_check();
	only_problem(MT_FXT_SLICE_DROP_OVERLAPPING, 1);
	CHECK_EQ(chk.nslices, 2);
	slice_is(0, 0, 10, 0, "s3");
	slice_is(1, 12, 15, 0, "s4");
	mt_fxt_check_release(&chk);

	/* parent first: nested */
	std_prelude();
	complete(2, 0, 20);
	complete(3, 0, 10);
	complete(4, 12, 15);
	run_check();
	no_problem();
	CHECK_EQ(chk.nslices, 3);
	slice_is(0, 0, 20, 0, "s2");
	slice_is(1, 0, 10, 1, "s3");
	slice_is(2, 12, 15, 1, "s4");
	mt_fxt_check_release(&chk);

	/* equal intervals: the first in the file is the parent */
	std_prelude();
	complete(3, 0, 10);
	complete(2, 0, 10);
	run_check();
	no_problem();
	slice_is(0, 0, 10, 0, "s3");
	slice_is(1, 0, 10, 1, "s2");
	mt_fxt_check_release(&chk);

	/* written at function exit (children first, distinct starts): the
	 * sort by start time nests them */
	std_prelude();
	complete(4, 2, 3);
	complete(3, 1, 5);
	complete(2, 0, 10);
	run_check();
	no_problem();
	slice_is(0, 0, 10, 0, "s2");
	slice_is(1, 1, 5, 1, "s3");
	slice_is(2, 2, 3, 2, "s4");
	mt_fxt_check_release(&chk);
}

static void test_nest_zero_duration(void)
{
	/* at the parent's start, after it in the file: a child */
	std_prelude();
	complete(2, 0, 10);
	complete(3, 0, 0);
	instant(4, 0);
	run_check();
	no_problem();
	slice_is(0, 0, 10, 0, "s2");
	slice_is(1, 0, 0, 1, "s3");
	slice_is(2, 0, 0, 2, "s4");   /* 0-duration slices stack */
	mt_fxt_check_release(&chk);

	/* at the parent's start, before it in the file: a sibling */
	std_prelude();
	complete(3, 0, 0);
	complete(2, 0, 10);
	run_check();
	no_problem();
	slice_is(0, 0, 0, 0, "s3");
	slice_is(1, 0, 10, 0, "s2");
	mt_fxt_check_release(&chk);

	/* at the parent's end: a sibling (half-open intervals) */
	std_prelude();
	complete(2, 0, 10);
	complete(3, 10, 10);
	complete(4, 5, 5);
	run_check();
	no_problem();
	slice_is(0, 0, 10, 0, "s2");
	slice_is(1, 5, 5, 1, "s4");
	slice_is(2, 10, 10, 0, "s3");
	mt_fxt_check_release(&chk);

	/* a 0-duration slice never encloses one with a duration */
	std_prelude();
	complete(3, 5, 5);
	complete(4, 5, 8);
	run_check();
	no_problem();
	slice_is(0, 5, 5, 0, "s3");
	slice_is(1, 5, 8, 0, "s4");
	mt_fxt_check_release(&chk);

	/* an end pops its slice at once: a 0-duration begin/end pair does not
	 * take an instant at the same ts as a child */
	std_prelude();
	begin(2, 5);
	end(5);
	instant(3, 5);
	run_check();
	no_problem();
	slice_is(0, 5, 5, 0, "s2");
	slice_is(1, 5, 5, 0, "s3");
	mt_fxt_check_release(&chk);
}

static void test_nest_overlap(void)
{
	std_prelude();
	complete(2, 0, 10);
	complete(3, 5, 20);     /* partial overlap: dropped */
	complete(4, 10, 20);    /* starts at the end: fine */
	run_check();
	only_problem(MT_FXT_SLICE_DROP_OVERLAPPING, 1);
	CHECK_EQ(chk.nslices, 2);
	slice_is(0, 0, 10, 0, "s2");
	slice_is(1, 10, 20, 0, "s4");
	CHECK_EQ(chk.ex[MT_FXT_SLICE_DROP_OVERLAPPING][0].offset,
		 chk.slices[1].offset - 24);
	mt_fxt_check_release(&chk);

	/* begin/end cannot misnest: an end closes the top-most begun slice,
	 * whatever its name */
	std_prelude();
	begin(2, 0);
	begin(3, 5);
	end(10);
	end(20);
	run_check();
	no_problem();
	slice_is(0, 0, 20, 0, "s2");
	slice_is(1, 5, 10, 1, "s3");
	mt_fxt_check_release(&chk);
}

static void test_end_without_begin(void)
{
	std_prelude();
	end(5);
	begin(2, 10);
	end(20);
	end(30);
	complete(3, 40, 50);
	end(45);   /* the complete event is not closed by an end */
	run_check();
	only_problem(MT_FXT_END_WITHOUT_BEGIN, 3);
	CHECK_EQ(chk.nslices, 2);
	slice_is(0, 10, 20, 0, "s2");
	slice_is(1, 40, 50, 0, "s3");
	mt_fxt_check_release(&chk);
}

static void test_did_not_end(void)
{
	std_prelude();
	begin(2, 10);
	begin(3, 20);
	end(30);
	run_check();
	only_problem(MT_FXT_DID_NOT_END, 1);
	slice_is(0, 10, -1, 0, "s2");
	slice_is(1, 20, 30, 1, "s3");
	mt_fxt_check_release(&chk);
}

static void test_misplaced_end(void)
{
	std_prelude();
	begin(2, 0);
	complete(3, 10, 20);
	begin(4, 15);      /* still open when the complete event ends */
	instant(5, 25);
	end(30);
	run_check();
	only_problem(MT_FXT_MISPLACED_END, 1);
	CHECK_EQ(chk.nslices, 4);
	slice_is(0, 0, 30, 0, "s2");
	slice_is(1, 10, 20, 1, "s3");
	slice_is(2, 15, 20, 2, "s4");   /* cut at the complete event's end */
	slice_is(3, 25, 25, 1, "s5");
	mt_fxt_check_release(&chk);
}

static void test_depth(void)
{
	unsigned i;

	/* 512 levels: fine */
	std_prelude();
	for (i = 0; i < MT_FXT_MAX_DEPTH; i++)
		begin(2, i);
	for (i = 0; i < MT_FXT_MAX_DEPTH; i++)
		end(1000 + i);
	run_check();
	no_problem();
	CHECK_EQ(chk.nslices, MT_FXT_MAX_DEPTH);
	slice_is(MT_FXT_MAX_DEPTH - 1, 511, 1000, 511, "s2");
	mt_fxt_check_release(&chk);

	/* 513: the deepest is dropped, so its end closes its parent and the
	 * outermost end finds nothing open */
	std_prelude();
	for (i = 0; i <= MT_FXT_MAX_DEPTH; i++)
		begin(2, i);
	for (i = 0; i <= MT_FXT_MAX_DEPTH; i++)
		end(1000 + i);
	run_check();
	CHECK_EQ(chk.count[MT_FXT_DEPTH_OVER_512], 1);
	CHECK_EQ(chk.count[MT_FXT_END_WITHOUT_BEGIN], 1);
	CHECK_EQ(mt_fxt_check_problems(&chk), 2);
	CHECK_EQ(chk.nslices, MT_FXT_MAX_DEPTH);
	slice_is(MT_FXT_MAX_DEPTH - 1, 511, 1000, 511, "s2");
	slice_is(0, 0, 1511, 0, "s2");
	mt_fxt_check_release(&chk);

	/* the same with complete events */
	std_prelude();
	for (i = 0; i <= MT_FXT_MAX_DEPTH; i++)
		complete(2, i, 2000 - i);
	run_check();
	only_problem(MT_FXT_DEPTH_OVER_512, 1);
	CHECK_EQ(chk.nslices, MT_FXT_MAX_DEPTH);
	mt_fxt_check_release(&chk);
}

/* Threads are apart; slices come out by (pid, tid, start, file order). */
static void test_threads(void)
{
	std_prelude();
	thread_rec(2, 100, 99);
	thread_rec(3, 50, 1);
	ev(MT_FXT_EV_COMPLETE, 1, 1, 2, 0, 10);
	ev(MT_FXT_EV_COMPLETE, 2, 1, 3, 5, 20);   /* overlaps, other thread */
	ev(MT_FXT_EV_COMPLETE, 3, 1, 4, 7, 8);
	ev(MT_FXT_EV_COMPLETE, 1, 1, 5, 2, 3);
	run_check();
	no_problem();
	CHECK_EQ(chk.nthreads, 3);
	CHECK_EQ(chk.nslices, 4);
	slice_is(0, 7, 8, 0, "s4");
	CHECK_EQ(chk.slices[0].pid, 50);
	slice_is(1, 5, 20, 0, "s3");
	CHECK_EQ(chk.slices[1].tid, 99);
	slice_is(2, 0, 10, 0, "s2");
	slice_is(3, 2, 3, 1, "s5");
	mt_fxt_check_release(&chk);
}

/* The end's arguments go to the slice it closes. */
static void test_end_args(void)
{
	size_t at;

	std_prelude();
	begin(2, 0);
	complete(3, 1, 2);
	at = open_rec(4 | (uint64_t)MT_FXT_EV_END << 16 | 1ull << 20 |
		      1ull << 24 | 1ull << 32 | 2ull << 48);
	w64(5);
	w64(0x11 | 4ull << 16 | 9ull << 32);
	done(at);
	run_check();
	no_problem();
	CHECK_EQ(chk.slices[0].nargs, 1);
	CHECK_EQ(chk.args[chk.slices[0].arg0].i, 9);
	CHECK_STR(mt_fxt_check_str(&chk, chk.args[chk.slices[0].arg0].name,
				   NULL), "s4");
	mt_fxt_check_release(&chk);
}

int main(void)
{
	RUN(test_null);
	RUN(test_minimal);
	RUN(test_worked_examples);
	RUN(test_args);
	RUN(test_inline_and_others);
	RUN(test_reregister);
	RUN(test_providers);
	RUN(test_bad_magic);
	RUN(test_size_zero);
	RUN(test_truncated);
	RUN(test_bad_record);
	RUN(test_undefined_string);
	RUN(test_undefined_thread);
	RUN(test_bad_record_type);
	RUN(test_provider_missing);
	RUN(test_init_missing);
	RUN(test_bad_ticks);
	RUN(test_timestamp_overflow);
	RUN(test_koid_truncated);
	RUN(test_thread_process_arg);
	RUN(test_nest_equal_start);
	RUN(test_nest_zero_duration);
	RUN(test_nest_overlap);
	RUN(test_end_without_begin);
	RUN(test_did_not_end);
	RUN(test_misplaced_end);
	RUN(test_depth);
	RUN(test_threads);
	RUN(test_end_args);
	reset();
	return unit_done();
}
