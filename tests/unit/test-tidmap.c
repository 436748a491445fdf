/* Unit tests for common/tidmap: dense indexes in order of first sight. */
#include <stdint.h>

#include "err.h"
#include "tidmap.h"
#include "unit.h"
#include "banned.h"

static void test_order(void)
{
	struct mt_tidmap m;
	uint32_t i;
	int is_new;

	poison(&m);
	mt_tidmap_init(&m);
	CHECK_EQ(mt_tidmap_get(&m, 10, 11, &i, &is_new), 0);
	CHECK_EQ(i, 0);
	CHECK_EQ(is_new, 1);
	CHECK_EQ(mt_tidmap_get(&m, 10, 12, &i, &is_new), 0);
	CHECK_EQ(i, 1);
	CHECK_EQ(is_new, 1);
	CHECK_EQ(mt_tidmap_get(&m, 10, 11, &i, &is_new), 0);
	CHECK_EQ(i, 0);
	CHECK_EQ(is_new, 0);
	/* the same tid in another process is another thread */
	CHECK_EQ(mt_tidmap_get(&m, 20, 11, &i, NULL), 0);
	CHECK_EQ(i, 2);
	CHECK_EQ(m.n, 3);
	mt_tidmap_release(&m);
	CHECK_EQ(m.n, 0);
}

static void test_many(void)
{
	struct mt_tidmap m;
	uint32_t k, i;
	int is_new, bad = 0;

	mt_tidmap_init(&m);
	for (k = 0; k < 100000; k++) {
		if (mt_tidmap_get(&m, k / 7, k * 3 + 1, &i, &is_new) || i != k ||
		    !is_new)
			bad++;
	}
	/* after every rehash, every thread keeps its index */
	for (k = 0; k < 100000; k++) {
		if (mt_tidmap_get(&m, k / 7, k * 3 + 1, &i, &is_new) || i != k ||
		    is_new)
			bad++;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(m.n, 100000);
	mt_tidmap_release(&m);
}

static void test_none_ids(void)
{
	struct mt_tidmap m;
	uint32_t i;

	mt_tidmap_init(&m);
	CHECK_EQ(mt_tidmap_get(&m, UINT32_MAX, UINT32_MAX, &i, NULL), 0);
	CHECK_EQ(i, 0);
	CHECK_EQ(mt_tidmap_get(&m, 0, 0, &i, NULL), 0);
	CHECK_EQ(i, 1);
	mt_tidmap_release(&m);
}

int main(void)
{
	RUN(test_order);
	RUN(test_many);
	RUN(test_none_ids);
	return unit_done();
}
