/*
 * The merge of sources each in time order (per-thread rings, per-CPU
 * rings) into one: a min-heap of the sources' next times, ties taken by
 * the lower source number, so that the order is the same run after run.
 * The caller keeps its sources and their positions; the heap says which
 * one goes next. O(log n) a step.
 *
 *   mt_merge_init(&m, nsources);
 *   for each source s with a next record: mt_merge_add(&m, s, its time);
 *   while (mt_merge_top(&m, &s)) {
 *           take s's record;
 *           if (s has another) mt_merge_next(&m, its time);
 *           else mt_merge_drop(&m);
 *   }
 *   mt_merge_release(&m);
 *
 * No printing, no exit.
 */
#ifndef MT_MERGE_H
#define MT_MERGE_H

#include <stddef.h>
#include <stdint.h>

struct mt_merge_head {
	uint64_t time;
	uint32_t src;
};

struct mt_merge {
	struct mt_merge_head *h;
	size_t n, cap;
};

/* Room for cap sources: 0, or MT_ENOMEM. */
int mt_merge_init(struct mt_merge *m, size_t cap);
void mt_merge_release(struct mt_merge *m);

/* Source src's next record is at time; at most cap sources at once (more
 * are not added: MT_EINVAL, a caller bug). 0 or MT_EINVAL. */
int mt_merge_add(struct mt_merge *m, uint32_t src, uint64_t time);

/* 1 and *src the source whose next record is the earliest; 0 when none
 * is left. */
int mt_merge_top(const struct mt_merge *m, uint32_t *src);

/* The top source's next record is now at time. */
void mt_merge_next(struct mt_merge *m, uint64_t time);

/* The top source has no more records. */
void mt_merge_drop(struct mt_merge *m);

#endif
