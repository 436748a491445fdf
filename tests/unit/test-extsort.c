/*
 * Unit tests for common/extsort: records back in order from memory (one
 * run), from the file (a few runs) and after merge passes (more runs than
 * the fan-in), equal keys included; bad arguments; calls out of turn.
 */
#include <stdint.h>
#include <stdlib.h>

#include "err.h"
#include "extsort.h"
#include "unit.h"
#include "banned.h"

struct rec {
	uint32_t key, seq;
};

static int by_key_seq(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* n records of pseudo-random keys (few distinct: ties) through a sorter of
 * runs of run records merged fanin at a time: all back, in order. */
static void sort_n(uint32_t n, size_t run, unsigned fanin)
{
	struct mt_extsort s;
	const void *p;
	struct rec r, prev = { 0, 0 };
	uint32_t i, x = 12345, got = 0;
	int k;

	poison(&s);
	CHECK_EQ(mt_extsort_init(&s, sizeof(r), by_key_seq, run, fanin), 0);
	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		r.key = (x >> 16) % 97;
		r.seq = i;
		CHECK_EQ(mt_extsort_add(&s, &r), 0);
	}
	CHECK_EQ(s.count, n);
	CHECK_EQ(mt_extsort_sort(&s), 0);
	while ((k = mt_extsort_next(&s, &p)) > 0) {
		const struct rec *q = p;

		if (got)
			CHECK(by_key_seq(&prev, q) < 0);
		prev = *q;
		got++;
	}
	CHECK_EQ(k, 0);
	CHECK_EQ(got, n);
	CHECK_EQ(mt_extsort_next(&s, &p), 0);
	CHECK_EQ(mt_extsort_add(&s, &r), MT_EINVAL); /* after the sort */
	mt_extsort_release(&s);
}

static void test_null(void)
{
	struct mt_extsort s;
	const void *p;

	poison(&s);
	CHECK_EQ(mt_extsort_init(&s, 8, by_key_seq, 16, 4), 0);
	CHECK_EQ(mt_extsort_next(&s, &p), MT_EINVAL); /* before the sort */
	mt_extsort_release(&s);
	CHECK_EQ(mt_extsort_init(&s, 8, by_key_seq, 16, 4), 0);
	CHECK_EQ(mt_extsort_sort(&s), 0);
	CHECK_EQ(mt_extsort_next(&s, &p), 0);
	mt_extsort_release(&s);
	CHECK_EQ(mt_extsort_init(&s, 0, by_key_seq, 16, 4), MT_EINVAL);
	CHECK_EQ(mt_extsort_sort(&s), MT_EINVAL);
	mt_extsort_release(&s);
	CHECK_EQ(mt_extsort_init(&s, 8, by_key_seq, 16, 1), MT_EINVAL);
	mt_extsort_release(&s);
}

static void test_memory(void) { sort_n(100, 100, 4); }
static void test_runs(void) { sort_n(1000, 300, 4); }
static void test_merge_passes(void) { sort_n(10007, 10, 3); }
static void test_one_record_runs(void) { sort_n(50, 1, 2); }

int main(void)
{
	RUN(test_null);
	RUN(test_memory);
	RUN(test_runs);
	RUN(test_merge_passes);
	RUN(test_one_record_runs);
	return unit_done();
}
