/*
 * Unit tests for mt-record/patch/patch-write (byte ranges written a run
 * of pages at a time), over a memory of its own: inject_read() and
 * inject_write() are this file's, counting the calls and failing where
 * told to.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../mt-record/patch/patch-write.h"
#include "unit.h"
#include "banned.h"

/* the memory: BASE .. BASE + SIZE */
#define BASE 0x400000u
#define SIZE (256u << 10)
static uint8_t mem[SIZE];
static int reads, writes;
static size_t fail_over; /* writes longer than this fail (0: none) */

int inject_read(const struct inject *in, uint64_t addr, void *buf, size_t n)
{
	(void)in;
	reads++;
	if (addr < BASE || addr + n > BASE + SIZE)
		return -1;
	memcpy(buf, mem + (addr - BASE), n);
	return 0;
}

int inject_write(const struct inject *in, uint64_t addr, const void *buf, size_t n)
{
	(void)in;
	writes++;
	if (addr < BASE || addr + n > BASE + SIZE || (fail_over && n > fail_over))
		return -1;
	memcpy(mem + (addr - BASE), buf, n);
	return 0;
}

static const uint8_t orig[5] = { 0x55, 0x48, 0x89, 0xe5, 0x53 };
static const uint8_t code[5] = { 0xe9, 1, 2, 3, 4 };

/* The memory filled with a pattern, orig at each of at[0, n). */
static void fill(const uint64_t *at, size_t n)
{
	size_t i;

	for (i = 0; i < SIZE; i++)
		mem[i] = (uint8_t)(i * 7 + 3);
	for (i = 0; i < n; i++)
		memcpy(mem + (at[i] - BASE), orig, sizeof(orig));
	reads = writes = 0;
}

static void item(struct patch_write *w, size_t tag, uint64_t at)
{
	*w = (struct patch_write){ tag, at, 5, orig, code, 99 };
}

/* Every byte but those of the ranges at[0, n) as fill() left it. */
static int untouched_but(const uint64_t *at, size_t n)
{
	size_t i, k;

	for (i = 0; i < SIZE; i++) {
		uint64_t a = BASE + i;
		int in = 0;

		for (k = 0; k < n; k++)
			in |= a >= at[k] && a < at[k] + 5;
		if (!in && mem[i] != (uint8_t)(i * 7 + 3))
			return 0;
	}
	return 1;
}

static void test_runs(void)
{
	/* two on one page, one across the next page's start, one three pages
	 * on (a run of its own), given out of order */
	static const uint64_t at[] = { BASE + 0x1010, BASE + 0x1100, BASE + 0x1ffe,
				       BASE + 0x5000 };
	struct patch_write w[4];
	size_t i;

	fill(at, 4);
	item(&w[0], 3, at[3]);
	item(&w[1], 1, at[1]);
	item(&w[2], 0, at[0]);
	item(&w[3], 2, at[2]);
	patch_write_all(NULL, w, 4);
	for (i = 0; i < 4; i++) {
		CHECK_EQ(w[i].rc, PW_WRITTEN);
		CHECK(!memcmp(mem + (at[w[i].tag] - BASE), code, 5));
	}
	/* sorted by address */
	CHECK_EQ(w[0].tag, 0);
	CHECK_EQ(w[3].tag, 3);
	/* two runs: pages 1-2, page 5 */
	CHECK_EQ(reads, 2);
	CHECK_EQ(writes, 2);
	CHECK(untouched_but(at, 4));
	/* again: each is there already, nothing written */
	for (i = 0; i < 4; i++)
		w[i].rc = 99;
	reads = writes = 0;
	patch_write_all(NULL, w, 4);
	for (i = 0; i < 4; i++)
		CHECK_EQ(w[i].rc, PW_ALREADY);
	CHECK_EQ(writes, 0);
}

static void test_other(void)
{
	static const uint64_t at[] = { BASE + 0x2000, BASE + 0x2040 };
	struct patch_write w[2];

	fill(at, 2);
	mem[0x2041] ^= 0xff; /* neither orig nor code */
	item(&w[0], 0, at[0]);
	item(&w[1], 1, at[1]);
	patch_write_all(NULL, w, 2);
	CHECK_EQ(w[0].rc, PW_WRITTEN);
	CHECK_EQ(w[1].rc, PW_OTHER);
	CHECK(!memcmp(mem + 0x2000, code, 5));
	CHECK_EQ(mem[0x2040], orig[0]); /* left as it was */
	CHECK_EQ(writes, 1);
}

static void test_long(void)
{
	/* one every page over 160 KiB: runs of at most PATCH_WRITE_RUN */
	uint64_t at[40];
	struct patch_write w[40];
	size_t i, n = 40;

	for (i = 0; i < n; i++)
		at[i] = BASE + 0x10000 + i * 4096 + 0x80;
	fill(at, n);
	for (i = 0; i < n; i++)
		item(&w[i], i, at[i]);
	patch_write_all(NULL, w, n);
	for (i = 0; i < n; i++)
		CHECK_EQ(w[i].rc, PW_WRITTEN);
	CHECK_EQ(writes, (int)((n * 4096 + PATCH_WRITE_RUN - 1) / PATCH_WRITE_RUN));
	CHECK(untouched_but(at, n));
}

static void test_write_fails(void)
{
	/* a run's write fails: each range is written alone */
	static const uint64_t at[] = { BASE + 0x3000, BASE + 0x3100, BASE + 0x3200 };
	struct patch_write w[3];
	size_t i;

	fill(at, 3);
	mem[0x3101] ^= 0xff;
	for (i = 0; i < 3; i++)
		item(&w[i], i, at[i]);
	fail_over = 64;
	patch_write_all(NULL, w, 3);
	fail_over = 0;
	CHECK_EQ(w[0].rc, PW_WRITTEN);
	CHECK_EQ(w[1].rc, PW_OTHER);
	CHECK_EQ(w[2].rc, PW_WRITTEN);
	CHECK(!memcmp(mem + 0x3000, code, 5));
	CHECK(!memcmp(mem + 0x3200, code, 5));
	CHECK_EQ(writes, 3); /* the run's, then two alone */
	/* beyond the memory: failed, and nothing else harmed */
	fill(at, 0);
	item(&w[0], 0, BASE + SIZE - 2);
	patch_write_all(NULL, w, 1);
	CHECK_EQ(w[0].rc, PW_FAILED);
	CHECK(untouched_but(at, 0));
}

int main(void)
{
	RUN(test_runs);
	RUN(test_other);
	RUN(test_long);
	RUN(test_write_fails);
	return unit_done();
}
