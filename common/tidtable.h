/*
 * struct mt_tidtable: a tool's per-thread state, one slot of the caller's
 * struct (elem bytes) per thread (pid, tid), by the index struct
 * mt_tidmap gives it (0, 1, 2, ... in order of first sight), so that the
 * threads can be walked in that order. A new thread's slot starts zeroed;
 * the caller fills in the rest.
 *
 * The table owns its map and the slots' array; the caller owns what it
 * puts in a slot. The array moves when it grows: a slot's address holds
 * until the next mt_tidtable_get() of a thread not in the table.
 */
#ifndef MT_TIDTABLE_H
#define MT_TIDTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "tidmap.h"

struct mt_tidtable {
	struct mt_tidmap map; /* (pid, tid) -> index */
	void *slots;          /* map.n slots of elem bytes, by index */
	size_t elem, cap;
	/* the thread of the last lookup: a run of records is mostly one
	 * thread's */
	uint32_t last_pid, last_tid, last_index;
	int have_last;
};

/* An empty table of slots of elem bytes (elem > 0). */
void mt_tidtable_init(struct mt_tidtable *t, size_t elem);
/* Frees the map and the slots (not what the caller keeps in them); the
 * table is empty again, of the same elem. */
void mt_tidtable_release(struct mt_tidtable *t);

/*
 * The slot of (pid, tid): slot is the address of the caller's pointer to
 * its struct (struct thread **), set to the thread's slot. A thread not
 * yet in the table is added, with a zeroed slot at the next index
 * (mt_tidtable_count() - 1 after the call), and *is_new (when is_new is
 * not NULL) set to 1; else *is_new is 0. Returns 0, or MT_ENOMEM or
 * MT_ETOOBIG (the table, and *slot, unchanged).
 */
static inline int mt_tidtable_get(struct mt_tidtable *t, uint32_t pid,
				  uint32_t tid, void *slot, int *is_new);

/* mt_tidtable_get()'s lookup past the last thread's (tidtable.c). */
int mt_tidtable_find(struct mt_tidtable *t, uint32_t pid, uint32_t tid,
		     void *slot, int *is_new);

/* How many threads the table holds: indexes 0 .. count - 1. */
static inline size_t mt_tidtable_count(const struct mt_tidtable *t)
{
	return t->map.n;
}

/* The slot of index i (i < mt_tidtable_count(t)). */
static inline void *mt_tidtable_at(const struct mt_tidtable *t, size_t i)
{
	return (char *)t->slots + i * t->elem;
}

/* Inline: a run of records is mostly one thread's, and this is per record. */
static inline int mt_tidtable_get(struct mt_tidtable *t, uint32_t pid,
				  uint32_t tid, void *slot, int *is_new)
{
	if (!t->have_last || pid != t->last_pid || tid != t->last_tid)
		return mt_tidtable_find(t, pid, tid, slot, is_new);
	if (is_new)
		*is_new = 0;
	*(void **)slot = mt_tidtable_at(t, t->last_index);
	return 0;
}

#endif
