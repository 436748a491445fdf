/* Unit tests for struct mt_buf (common/buf.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "buf.h"
#include "err.h"
#include "unit.h"
#include "banned.h"

static void test_init(void)
{
	struct mt_buf b;

	poison(&b);
	mt_buf_init(&b);
	CHECK(b.p == NULL);
	CHECK_EQ(b.len, 0);
	CHECK_EQ(b.cap, 0);
	mt_buf_release(&b);
	CHECK(b.p == NULL);
}

/* A zeroed struct (MT_BUF_INIT) is a usable empty buffer: every verb works
 * on it without an _init call. */
static void test_null(void)
{
	struct mt_buf b = MT_BUF_INIT;
	size_t len = 99;
	char *p;

	mt_buf_reset(&b);
	CHECK(b.p == NULL);
	CHECK_EQ(b.len, 0);
	p = mt_buf_detach(&b, &len);
	CHECK(p == NULL);
	CHECK_EQ(len, 0);
	mt_buf_release(&b);
	mt_buf_release(&b);
	CHECK(b.p == NULL);

	CHECK_EQ(mt_buf_add(&b, "xy", 2), 0);
	CHECK_STR(b.p, "xy");
	mt_buf_release(&b);

	/* growing by 0 still allocates the NUL, so p becomes a string */
	CHECK_EQ(mt_buf_grow(&b, 0), 0);
	CHECK(b.p != NULL);
	CHECK_STR(b.p, "");
	CHECK_EQ(b.len, 0);
	CHECK(b.cap >= 1);
	mt_buf_release(&b);
}

static void test_add(void)
{
	struct mt_buf b;

	poison(&b);
	mt_buf_init(&b);
	CHECK_EQ(mt_buf_add(&b, "hello", 5), 0);
	CHECK_EQ(b.len, 5);
	CHECK_STR(b.p, "hello");
	CHECK(b.cap > b.len);
	CHECK_EQ(mt_buf_add(&b, ", world", 7), 0);
	CHECK_EQ(b.len, 12);
	CHECK_STR(b.p, "hello, world");
	/* adding nothing keeps the contents and the NUL */
	CHECK_EQ(mt_buf_add(&b, "ignored", 0), 0);
	CHECK_EQ(b.len, 12);
	CHECK_STR(b.p, "hello, world");
	mt_buf_release(&b);
	CHECK(b.p == NULL);
	CHECK_EQ(b.len, 0);
	CHECK_EQ(b.cap, 0);
}

/* Binary data: embedded NULs are kept, len counts them, a NUL follows. */
static void test_binary(void)
{
	static const char data[] = { 'a', 0, 'b', (char)0xff, 0 };
	struct mt_buf b = MT_BUF_INIT;

	CHECK_EQ(mt_buf_add(&b, data, sizeof(data)), 0);
	CHECK_EQ(b.len, sizeof(data));
	CHECK(!memcmp(b.p, data, sizeof(data)));
	CHECK_EQ(b.p[b.len], 0);
	mt_buf_release(&b);
}

static void test_grow(void)
{
	struct mt_buf b = MT_BUF_INIT;
	char *before;

	CHECK_EQ(mt_buf_add(&b, "abc", 3), 0);
	CHECK_EQ(mt_buf_grow(&b, 1000), 0);
	CHECK(b.cap >= 3 + 1000 + 1);
	CHECK_EQ(b.len, 3);
	CHECK_STR(b.p, "abc");
	/* after grow(n), adding n bytes does not move the buffer */
	before = b.p;
	{
		char fill[1000];

		memset(fill, 'z', sizeof(fill));
		CHECK_EQ(mt_buf_add(&b, fill, sizeof(fill)), 0);
	}
	CHECK(b.p == before);
	CHECK_EQ(b.len, 1003);
	CHECK_EQ(b.p[1002], 'z');
	CHECK_EQ(b.p[1003], 0);
	/* growing within capacity changes nothing */
	{
		size_t cap = b.cap;

		CHECK_EQ(mt_buf_grow(&b, cap - b.len - 1), 0);
		CHECK_EQ(b.cap, cap);
		CHECK(b.p == before);
	}
	mt_buf_release(&b);
}

/* Requests that cannot be met fail with MT_ETOOBIG and leave b unchanged. */
static void test_toobig(void)
{
	struct mt_buf b = MT_BUF_INIT;
	char *p;
	size_t cap;

	CHECK_EQ(mt_buf_grow(&b, SIZE_MAX), MT_ETOOBIG);
	CHECK(b.p == NULL);
	CHECK_EQ(mt_buf_add(&b, "q", 1), 0);
	p = b.p;
	cap = b.cap;
	CHECK_EQ(mt_buf_grow(&b, SIZE_MAX), MT_ETOOBIG);
	CHECK_EQ(mt_buf_grow(&b, SIZE_MAX - 1), MT_ETOOBIG);
	CHECK_EQ(mt_buf_grow(&b, SIZE_MAX / 2), MT_ETOOBIG);
	CHECK_EQ(mt_buf_add(&b, "x", SIZE_MAX), MT_ETOOBIG);
	CHECK(b.p == p);
	CHECK_EQ(b.cap, cap);
	CHECK_EQ(b.len, 1);
	CHECK_STR(b.p, "q");
	mt_buf_release(&b);
}

static void test_reset(void)
{
	struct mt_buf b = MT_BUF_INIT;
	char *p;
	size_t cap;

	CHECK_EQ(mt_buf_add(&b, "something", 9), 0);
	p = b.p;
	cap = b.cap;
	mt_buf_reset(&b);
	CHECK_EQ(b.len, 0);
	CHECK(b.p == p);
	CHECK_EQ(b.cap, cap);
	CHECK_STR(b.p, "");
	CHECK_EQ(mt_buf_add(&b, "new", 3), 0);
	CHECK_STR(b.p, "new");
	CHECK(b.p == p);
	mt_buf_release(&b);
}

static void test_detach(void)
{
	struct mt_buf b = MT_BUF_INIT;
	size_t len = 0;
	char *p;

	CHECK_EQ(mt_buf_add(&b, "owned", 5), 0);
	p = mt_buf_detach(&b, &len);
	CHECK_STR(p, "owned");
	CHECK_EQ(len, 5);
	CHECK(b.p == NULL);
	CHECK_EQ(b.len, 0);
	CHECK_EQ(b.cap, 0);
	/* b is empty and reusable; p is the caller's */
	CHECK_EQ(mt_buf_add(&b, "again", 5), 0);
	CHECK(b.p != p);
	CHECK_STR(b.p, "again");
	CHECK_STR(p, "owned");
	free(p);
	/* len may be NULL */
	p = mt_buf_detach(&b, NULL);
	CHECK_STR(p, "again");
	free(p);
	mt_buf_release(&b);
}

/* Many small appends: contents exact, always NUL-terminated, cap > len. */
static void test_many(void)
{
	struct mt_buf b = MT_BUF_INIT;
	size_t i, n = 300000;
	int ok = 1;

	for (i = 0; i < n; i++) {
		char c = (char)('a' + i % 26);

		if (mt_buf_add(&b, &c, 1) || b.p[b.len] != 0 || b.cap <= b.len)
			ok = 0;
	}
	CHECK(ok);
	CHECK_EQ(b.len, n);
	for (i = 0; i < n; i++)
		if (b.p[i] != (char)('a' + i % 26))
			break;
	CHECK_EQ(i, n);
	CHECK_EQ(strlen(b.p), n);
	mt_buf_release(&b);

	/* appends of varying sizes */
	{
		char chunk[777];
		size_t total = 0, k;

		for (k = 0; k < sizeof(chunk); k++)
			chunk[k] = (char)(k % 251 + 1);
		for (k = 0; k < 2000; k++) {
			size_t m = (k * 37) % sizeof(chunk);

			if (mt_buf_add(&b, chunk, m))
				ok = 0;
			total += m;
			if (b.len != total || b.p[total] != 0)
				ok = 0;
		}
		CHECK(ok);
	}
	mt_buf_release(&b);
}

/* mt_prefault(): the pages of the range present after it (mincore says
 * so, where the kernel has MADV_POPULATE_WRITE), a partial page at each
 * end too; nothing below 16 KiB; bytes and errno unchanged. */
static void test_prefault(void)
{
	size_t pages = 64, i, in = 0;
	unsigned char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), vec[64];
	char *m;

	CHECK(p != MAP_FAILED);
	CHECK_EQ(mincore(p, pages * 4096, vec), 0);
	for (i = 0; i < pages; i++)
		in += vec[i] & 1;
	CHECK_EQ(in, 0); /* never written: none there */
	errno = 1234;
	mt_prefault(p + 4 * 4096, 8192); /* below 16 KiB: nothing */
	CHECK_EQ(errno, 1234);
	mt_prefault(p + 100, (pages - 2) * 4096);
	CHECK_EQ(errno, 1234);
	CHECK_EQ(mincore(p, pages * 4096, vec), 0);
	/* 23: MADV_POPULATE_WRITE, which a kernel before 5.14 lacks */
	if (madvise(p + (pages - 1) * 4096, 4096, 23) == 0) {
		for (i = 0, in = 0; i < pages; i++)
			in += vec[i] & 1;
		CHECK_EQ(in, pages - 1); /* pages 0 and 62 hold a part of it */
		CHECK_EQ(vec[pages - 1] & 1, 0); /* past it */
	}
	for (i = 0; i < pages * 4096; i++)
		if (p[i])
			break;
	CHECK_EQ(i, pages * 4096); /* zero still */
	munmap(p, pages * 4096);
	m = malloc(1 << 20);
	CHECK(m != NULL);
	for (i = 0; i < 1 << 20; i++)
		m[i] = (char)(i * 7);
	mt_prefault(m + 3, (1 << 20) - 6);
	for (i = 0; i < 1 << 20; i++)
		if (m[i] != (char)(i * 7))
			break;
	CHECK_EQ(i, 1 << 20); /* the bytes as they were */
	free(m);
}

int main(void)
{
	RUN(test_init);
	RUN(test_null);
	RUN(test_add);
	RUN(test_binary);
	RUN(test_grow);
	RUN(test_toobig);
	RUN(test_reset);
	RUN(test_detach);
	RUN(test_many);
	RUN(test_prefault);
	return unit_done();
}
