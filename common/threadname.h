/*
 * When a stream owes a thread a THREAD record (docs/format.md, "Sent when
 * a thread is first seen and again when its name changes"): before the
 * thread's first record, and again before a record whose thread has
 * another name than the last THREAD record gave it. The one rule of the
 * writers of THREAD records: mt-script-parse's, mt-record's perf
 * dlfilter's and mt-record's stream output's.
 *
 * A name is a string id of the stream being written. Name 0 (no name
 * known: an empty comm, none from perf) gives a thread its first THREAD
 * record (comm 0) but never another one: a name once given holds.
 *
 * The caller keeps one struct mt_thread_name per thread, zeroed when the
 * thread is first seen (in its slot of a struct mt_tidtable, tidtable.h),
 * and writes the THREAD record itself, with the time it chooses (its
 * record's, or MT_NONE64). Header-only: it is asked once a record.
 */
#ifndef MT_THREADNAME_H
#define MT_THREADNAME_H

#include <stdint.h>

struct mt_thread_name {
	uint32_t name; /* the comm of the last THREAD record due */
	int seen;      /* a THREAD record was due once: the thread was seen */
};

/*
 * Whether a THREAD record naming name is due for the thread of t: 1 when
 * the thread has had none, or name is not 0 and not the last one's; t
 * then takes name as its THREAD record's, which the caller writes. 0
 * when none is due (t unchanged).
 */
static inline int mt_thread_name_due(struct mt_thread_name *t, uint32_t name)
{
	if (t->seen && (!name || name == t->name))
		return 0;
	t->seen = 1;
	t->name = name;
	return 1;
}

#endif
