/*
 * common/merge: sources in time order merged into one, ties by source.
 */
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "merge.h"
#include "unit.h"
#include "banned.h"

#define NSRC 37
#define PER 200

/* Sources of random lengths and times (many equal), merged: every record
 * once, in (time, source) order, each source's own in its order. */
static void test_random(void)
{
	static uint64_t t[NSRC][PER];
	size_t len[NSRC], pos[NSRC] = { 0 }, total = 0, got = 0, s;
	uint64_t last_time = 0;
	uint32_t last_src = 0, src;
	struct mt_merge m;
	unsigned seed = 12345;

	for (s = 0; s < NSRC; s++) {
		uint64_t v = 0;
		size_t i;

		len[s] = (size_t)(rand_r(&seed) % (PER + 1));
		for (i = 0; i < len[s]; i++)
			t[s][i] = v += (uint64_t)(rand_r(&seed) % 3);
		total += len[s];
	}
	CHECK_EQ(mt_merge_init(&m, NSRC), 0);
	for (s = 0; s < NSRC; s++)
		if (len[s])
			CHECK_EQ(mt_merge_add(&m, (uint32_t)s, t[s][0]), 0);
	while (mt_merge_top(&m, &src)) {
		uint64_t time = t[src][pos[src]];

		CHECK(got == 0 || time > last_time ||
		      (time == last_time && src > last_src) ||
		      (time == last_time && src == last_src));
		last_time = time;
		last_src = src;
		got++;
		if (++pos[src] < len[src])
			mt_merge_next(&m, t[src][pos[src]]);
		else
			mt_merge_drop(&m);
	}
	CHECK_EQ(got, total);
	for (s = 0; s < NSRC; s++)
		CHECK_EQ(pos[s], len[s]);
	mt_merge_release(&m);
}

static void test_edges(void)
{
	struct mt_merge m;
	uint32_t src = 99;

	CHECK_EQ(mt_merge_init(&m, 2), 0);
	CHECK_EQ(mt_merge_top(&m, &src), 0);
	mt_merge_next(&m, 5); /* nothing to move: no harm */
	mt_merge_drop(&m);
	CHECK_EQ(mt_merge_add(&m, 1, 7), 0);
	CHECK_EQ(mt_merge_add(&m, 0, 7), 0);
	CHECK_EQ(mt_merge_add(&m, 2, 1), MT_EINVAL); /* beyond cap */
	CHECK_EQ(mt_merge_top(&m, &src), 1);
	CHECK_EQ(src, 0); /* the tie: the lower source */
	mt_merge_next(&m, 3); /* earlier than the other: still first */
	CHECK_EQ(mt_merge_top(&m, &src), 1);
	CHECK_EQ(src, 0);
	mt_merge_drop(&m);
	CHECK_EQ(mt_merge_top(&m, &src), 1);
	CHECK_EQ(src, 1);
	mt_merge_drop(&m);
	CHECK_EQ(mt_merge_top(&m, &src), 0);
	mt_merge_release(&m);
}

int main(void)
{
	RUN(test_random);
	RUN(test_edges);
	return unit_done();
}
