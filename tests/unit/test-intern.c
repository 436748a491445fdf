/* Unit tests for the string interning table (common/intern.h). */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "err.h"
#include "intern.h"
#include "unit.h"
#include "banned.h"

static uint32_t get(struct mt_intern *t, const char *s, size_t len, int *is_new)
{
	uint32_t id = 0xdeadbeef;

	CHECK_EQ(mt_intern_get(t, s, len, &id, is_new), 0);
	return id;
}

static void check_str(const struct mt_intern *t, uint32_t id, const char *s,
		      size_t len)
{
	size_t got_len = 0xdead;
	const char *p = mt_intern_str(t, id, &got_len);

	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_EQ(got_len, len);
	CHECK(!memcmp(p, s, len));
	CHECK_EQ(p[len], 0);
}

/* _init sets every field: a poisoned struct becomes an empty table. */
static void test_init(void)
{
	struct mt_intern t;
	int is_new = -1;

	poison(&t);
	mt_intern_init(&t);
	CHECK_EQ(mt_intern_count(&t), 0);
	CHECK(mt_intern_str(&t, 0, NULL) == NULL);
	CHECK(mt_intern_str(&t, 1, NULL) == NULL);
	CHECK_EQ(get(&t, "a", 1, &is_new), 1);
	CHECK_EQ(is_new, 1);
	mt_intern_release(&t);
	CHECK_EQ(mt_intern_count(&t), 0);
}

/* A zeroed struct is an empty table; release is idempotent. */
static void test_null(void)
{
	struct mt_intern t;

	memset(&t, 0, sizeof(t));
	CHECK_EQ(mt_intern_count(&t), 0);
	CHECK(mt_intern_str(&t, 1, NULL) == NULL);
	mt_intern_release(&t);
	mt_intern_release(&t);
	CHECK_EQ(get(&t, "x", 1, NULL), 1);
	check_str(&t, 1, "x", 1);
	mt_intern_release(&t);
	CHECK(mt_intern_str(&t, 1, NULL) == NULL);
	/* a released table is reusable and numbers from 1 again */
	CHECK_EQ(get(&t, "y", 1, NULL), 1);
	check_str(&t, 1, "y", 1);
	mt_intern_release(&t);
}

static void test_order(void)
{
	struct mt_intern t;
	int is_new = -1;

	mt_intern_init(&t);
	CHECK_EQ(get(&t, "main", 4, &is_new), 1);
	CHECK_EQ(is_new, 1);
	CHECK_EQ(get(&t, "libc.so.6", 9, &is_new), 2);
	CHECK_EQ(is_new, 1);
	CHECK_EQ(get(&t, "main", 4, &is_new), 1);
	CHECK_EQ(is_new, 0);
	CHECK_EQ(get(&t, "foo", 3, &is_new), 3);
	CHECK_EQ(is_new, 1);
	CHECK_EQ(get(&t, "libc.so.6", 9, &is_new), 2);
	CHECK_EQ(is_new, 0);
	/* is_new may be NULL */
	CHECK_EQ(get(&t, "foo", 3, NULL), 3);
	CHECK_EQ(get(&t, "bar", 3, NULL), 4);
	CHECK_EQ(mt_intern_count(&t), 4);
	check_str(&t, 1, "main", 4);
	check_str(&t, 2, "libc.so.6", 9);
	check_str(&t, 3, "foo", 3);
	check_str(&t, 4, "bar", 3);
	/* len may be NULL */
	CHECK_STR(mt_intern_str(&t, 2, NULL), "libc.so.6");
	mt_intern_release(&t);
}

/* Only the len bytes count: a prefix of a longer buffer is its own string. */
static void test_len(void)
{
	struct mt_intern t;
	static const char s[] = "abcdefghijklmnopqrstuvwxyz";
	size_t n;

	mt_intern_init(&t);
	for (n = 1; n <= 26; n++)
		CHECK_EQ(get(&t, s, n, NULL), n);
	for (n = 26; n >= 1; n--) {
		CHECK_EQ(get(&t, s, n, NULL), n);
		check_str(&t, (uint32_t)n, s, n);
	}
	mt_intern_release(&t);
}

/* Arbitrary bytes: high bytes, embedded NULs (the table itself does not
 * forbid them; the stream writer does), the empty string. */
static void test_bytes(void)
{
	struct mt_intern t;
	static const char hi[] = "caf\xc3\xa9 \x80\x81\xfe\xff";
	static const char hi2[] = "caf\xc3\xa9 \x80\x81\xfe\xfe";
	static const char nul1[] = { 'a', 0, 'b' };
	static const char nul2[] = { 'a', 0, 'c' };
	uint32_t id_hi, id_hi2, id_empty, id_a, id_n1, id_n2, id_a0;
	int is_new = -1;
	size_t len = 99;

	mt_intern_init(&t);
	id_hi = get(&t, hi, sizeof(hi) - 1, NULL);
	id_hi2 = get(&t, hi2, sizeof(hi2) - 1, NULL);
	id_empty = get(&t, "", 0, &is_new);
	CHECK_EQ(is_new, 1);
	id_a = get(&t, "a", 1, NULL);
	id_n1 = get(&t, nul1, 3, NULL);
	id_n2 = get(&t, nul2, 3, NULL);
	id_a0 = get(&t, nul1, 2, NULL); /* "a\0" */
	CHECK_EQ(id_hi, 1);
	CHECK_EQ(id_hi2, 2);
	CHECK_EQ(id_empty, 3);
	CHECK_EQ(id_a, 4);
	CHECK_EQ(id_n1, 5);
	CHECK_EQ(id_n2, 6);
	CHECK_EQ(id_a0, 7);
	CHECK_EQ(get(&t, "", 0, &is_new), id_empty);
	CHECK_EQ(is_new, 0);
	CHECK_EQ(get(&t, hi, sizeof(hi) - 1, NULL), id_hi);
	CHECK_EQ(get(&t, nul2, 3, NULL), id_n2);
	check_str(&t, id_hi, hi, sizeof(hi) - 1);
	check_str(&t, id_hi2, hi2, sizeof(hi2) - 1);
	check_str(&t, id_n1, nul1, 3);
	check_str(&t, id_a0, nul1, 2);
	CHECK_STR(mt_intern_str(&t, id_empty, &len), "");
	CHECK_EQ(len, 0);
	mt_intern_release(&t);
}

static void test_bad_ids(void)
{
	struct mt_intern t;
	size_t len = 12345;

	mt_intern_init(&t);
	CHECK(mt_intern_str(&t, 0, &len) == NULL);
	CHECK_EQ(len, 12345); /* untouched on failure */
	get(&t, "one", 3, NULL);
	get(&t, "two", 3, NULL);
	CHECK(mt_intern_str(&t, 0, &len) == NULL);
	CHECK(mt_intern_str(&t, 3, &len) == NULL);
	CHECK(mt_intern_str(&t, 1000, &len) == NULL);
	CHECK(mt_intern_str(&t, UINT32_MAX, &len) == NULL);
	CHECK_EQ(len, 12345);
	CHECK(mt_intern_str(&t, 2, &len) != NULL);
	CHECK_EQ(len, 3);
	mt_intern_release(&t);
}

static size_t name(char *p, size_t i)
{
	/* different lengths, and prefixes of each other (s1, s10, s100) */
	return (size_t)snprintf(p, 32, "s%zu", i);
}

/* Enough strings to rehash many times: ids stay in first-seen order and
 * every text stays right. */
static void test_many(void)
{
	enum { N = 200000 };
	struct mt_intern t;
	char s[32];
	size_t i, len, bad_new = 0, bad_id = 0, bad_text = 0;

	mt_intern_init(&t);
	for (i = 0; i < N; i++) {
		int is_new = 0;
		uint32_t id = 0;

		len = name(s, i);
		if (mt_intern_get(&t, s, len, &id, &is_new) || !is_new)
			bad_new++;
		if (id != i + 1)
			bad_id++;
	}
	CHECK_EQ(mt_intern_count(&t), N);
	for (i = 0; i < N; i++) {
		int is_new = 1;
		uint32_t id = 0;
		size_t got = 0;
		const char *p;

		len = name(s, i);
		if (mt_intern_get(&t, s, len, &id, &is_new) || is_new)
			bad_new++;
		if (id != i + 1)
			bad_id++;
		p = mt_intern_str(&t, (uint32_t)(i + 1), &got);
		if (!p || got != len || memcmp(p, s, len) || p[len])
			bad_text++;
	}
	CHECK_EQ(bad_new, 0);
	CHECK_EQ(bad_id, 0);
	CHECK_EQ(bad_text, 0);
	CHECK_EQ(mt_intern_count(&t), N);
	CHECK(mt_intern_str(&t, N + 1, NULL) == NULL);
	mt_intern_release(&t);
}

/* Strings around and beyond the 64 KiB chunk size, mixed with small ones,
 * so that big strings get chunks of their own and small ones keep filling
 * the current chunk. */
static void test_big(void)
{
	static const size_t sizes[] = {
		100000, 5, 65535, 65536, 65537, 16383, 16384, 16385, 1, 200000,
		70000, 3, 40000, 40000, 1 << 20,
	};
	enum { NS = sizeof(sizes) / sizeof(sizes[0]) };
	struct mt_intern t;
	char *s[NS];
	uint32_t id[NS];
	size_t i, j;

	mt_intern_init(&t);
	for (i = 0; i < NS; i++) {
		s[i] = malloc(sizes[i]);
		CHECK(s[i] != NULL);
		if (!s[i])
			return;
		for (j = 0; j < sizes[i]; j++)
			s[i][j] = (char)('A' + (i * 7 + j) % 53);
		id[i] = get(&t, s[i], sizes[i], NULL);
		CHECK_EQ(id[i], 2 * i + 1);
		/* interleave small strings */
		{
			char small[32];

			get(&t, small, name(small, i), NULL);
		}
	}
	for (i = 0; i < NS; i++) {
		int is_new = 1;

		CHECK_EQ(get(&t, s[i], sizes[i], &is_new), id[i]);
		CHECK_EQ(is_new, 0);
		check_str(&t, id[i], s[i], sizes[i]);
	}
	/* the caller's buffers are copied: changing them changes nothing */
	for (i = 0; i < NS; i++) {
		memset(s[i], 'z', sizes[i]);
		free(s[i]);
	}
	for (i = 0; i < NS; i++) {
		size_t len;
		const char *p = mt_intern_str(&t, id[i], &len);

		CHECK(p != NULL);
		if (!p)
			continue;
		CHECK_EQ(len, sizes[i]);
		for (j = 0; j < len; j++)
			if (p[j] != (char)('A' + (i * 7 + j) % 53))
				break;
		CHECK_EQ(j, len);
	}
	mt_intern_release(&t);
}

/* A length of 4 GiB or more is refused with MT_ETOOBIG before any byte is
 * read: the 4 GiB are mapped without access rights, so reading them (hashing
 * before checking the length took seconds) crashes this test. */
static void test_toobig(void)
{
	struct mt_intern t;
	size_t len = (size_t)UINT32_MAX;
	uint32_t id = 77;
	int is_new = 5;
	char *p;

	if (sizeof(size_t) <= 4)
		return;
	p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		 MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;
	mt_intern_init(&t);
	CHECK_EQ(mt_intern_get(&t, p, len, &id, &is_new), MT_ETOOBIG);
	CHECK_EQ(is_new, 0);
	CHECK_EQ(mt_intern_count(&t), 0);
	/* the table still works */
	CHECK_EQ(get(&t, "ok", 2, NULL), 1);
	mt_intern_release(&t);
	munmap(p, len);
}

static void test_hash(void)
{
	static const char s[] = "a string longer than eight bytes";
	size_t n;

	for (n = 0; n < sizeof(s); n++)
		CHECK_EQ(mt_hash(s, n), mt_hash(s, n));
	/* length is part of the hash: "a" and "a\0" differ */
	CHECK(mt_hash("a\0", 1) != mt_hash("a\0", 2));
	CHECK(mt_hash("abcdefgh1", 9) != mt_hash("abcdefgh2", 9));
}

int main(void)
{
	RUN(test_init);
	RUN(test_null);
	RUN(test_order);
	RUN(test_len);
	RUN(test_bytes);
	RUN(test_bad_ids);
	RUN(test_many);
	RUN(test_big);
	RUN(test_toobig);
	RUN(test_hash);
	return unit_done();
}
