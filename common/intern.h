/*
 * String interning: each distinct byte string gets a small id, 1, 2, 3, ...
 * in order of first appearance (0 is never used; it means "no string").
 *
 * Ownership: the table copies every string it is given and owns the copies
 * until mt_intern_release(); pointers returned by mt_intern_str() stay valid
 * until then. Memory grows with the number and size of distinct strings only.
 */
#ifndef MT_INTERN_H
#define MT_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct mt_intern_str {
	const char *p; /* NUL-terminated copy */
	uint32_t len;
	uint32_t hash;
};

struct mt_intern_chunk;

struct mt_intern {
	uint32_t *slots;             /* open addressing: 0 empty, else id */
	size_t nslots;               /* power of two */
	struct mt_intern_str *strs;  /* strs[id], strs[0] unused */
	size_t nstrs;                /* ids in use are 1 .. nstrs */
	size_t cap;
	struct mt_intern_chunk *chunks; /* storage for the copies */
};

void mt_intern_init(struct mt_intern *t);
void mt_intern_release(struct mt_intern *t);

/*
 * Find or add the len bytes at s. Sets *id, and *is_new (if not NULL) to 1
 * when the string was added by this call. Returns 0, MT_ENOMEM, or
 * MT_ETOOBIG (len >= 4 GiB, or more than 2^32 - 2 strings).
 */
int mt_intern_get(struct mt_intern *t, const char *s, size_t len, uint32_t *id,
		  int *is_new);

/* The string with this id and its length, or NULL if id is not in use. */
const char *mt_intern_str(const struct mt_intern *t, uint32_t id, size_t *len);

/* Number of strings held. */
static inline size_t mt_intern_count(const struct mt_intern *t)
{
	return t->nstrs;
}

/* The hash used by the table, exposed for callers that cache lookups. */
uint32_t mt_hash(const void *s, size_t len);

#endif
