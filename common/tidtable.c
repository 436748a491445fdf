/*
 * A tool's per-thread slots: see tidtable.h.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "tidtable.h"
#include "banned.h"

void mt_tidtable_init(struct mt_tidtable *t, size_t elem)
{
	memset(t, 0, sizeof(*t));
	mt_tidmap_init(&t->map);
	t->elem = elem;
}

void mt_tidtable_release(struct mt_tidtable *t)
{
	size_t elem = t->elem;

	mt_tidmap_release(&t->map);
	free(t->slots);
	mt_tidtable_init(t, elem);
}

int mt_tidtable_find(struct mt_tidtable *t, uint32_t pid, uint32_t tid,
		     void *slot, int *is_new)
{
	uint32_t i;
	int err, added = 0;

	/* room first: a thread the map adds always has its slot */
	if ((err = mt_grow(&t->slots, &t->cap, t->map.n + 1, t->elem)) ||
	    (err = mt_tidmap_get(&t->map, pid, tid, &i, &added)))
		return err;
	t->last_pid = pid;
	t->last_tid = tid;
	t->last_index = i;
	t->have_last = 1;
	if (is_new)
		*is_new = added;
	*(void **)slot = mt_tidtable_at(t, i);
	return 0;
}
