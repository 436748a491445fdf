/*
 * struct mt_idlist: a --pid or --tid list of the command line, numbers
 * separated by commas; an empty list keeps every id. Tool tier
 * (libmttool.a, like die.h): a bad list dies with MT_EXIT_USAGE.
 *
 * Ownership: the list owns its array until mt_idlist_release().
 */
#ifndef MT_IDLIST_H
#define MT_IDLIST_H

#include <stddef.h>
#include <stdint.h>

struct mt_idlist {
	uint32_t *v;
	size_t n, cap;
};

#define MT_IDLIST_INIT { NULL, 0, 0 }

/*
 * Add the numbers of s (decimal, below 2^32 - 1, separated by commas) to
 * l; an option given again adds to its list. Dies naming opt ("--pid")
 * and the rest of s from the first bad number.
 */
void mt_idlist_parse_or_die(struct mt_idlist *l, const char *s,
			    const char *opt);

/* id is in l, or l is empty. */
int mt_idlist_has(const struct mt_idlist *l, uint32_t id);

void mt_idlist_release(struct mt_idlist *l);

#endif
