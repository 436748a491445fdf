/*
 * struct mt_tidmap: the threads of a trace, (pid, tid) -> a dense index
 * 0, 1, 2, ... in order of first appearance, so that each tool keeps its
 * per-thread state in an array of its own. Memory grows with the number of
 * threads. The map owns only its hash slots.
 */
#ifndef MT_TIDMAP_H
#define MT_TIDMAP_H

#include <stddef.h>
#include <stdint.h>

struct mt_tidmap_slot;

struct mt_tidmap {
	struct mt_tidmap_slot *slots;
	size_t nslots; /* power of two, or 0 */
	size_t n;      /* threads in the map: indexes 0 .. n-1 */
};

void mt_tidmap_init(struct mt_tidmap *m);
void mt_tidmap_release(struct mt_tidmap *m);

/* The index of (pid, tid), adding it when new (then *is_new, if not NULL,
 * is set to 1). Returns 0 or MT_ENOMEM. */
int mt_tidmap_get(struct mt_tidmap *m, uint32_t pid, uint32_t tid,
		  uint32_t *index, int *is_new);

#endif
