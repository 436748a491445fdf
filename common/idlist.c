/*
 * --pid and --tid lists (idlist.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "die.h"
#include "idlist.h"
#include "stream.h" /* MT_NONE32 */
#include "banned.h"

void mt_idlist_parse_or_die(struct mt_idlist *l, const char *s,
			    const char *opt)
{
	char *end;

	while (*s) {
		unsigned long v;

		errno = 0;
		v = strtoul(s, &end, 10);
		if (end == s || errno || v >= MT_NONE32 || (*end && *end != ','))
			die(MT_EXIT_USAGE, "%s: expected numbers separated by commas: %s",
			    opt, s);
		grow_or_die(&l->v, &l->cap, l->n, sizeof(*l->v));
		l->v[l->n++] = (uint32_t)v;
		s = *end ? end + 1 : end;
	}
}

int mt_idlist_has(const struct mt_idlist *l, uint32_t id)
{
	size_t i;

	if (!l->n)
		return 1;
	for (i = 0; i < l->n; i++)
		if (l->v[i] == id)
			return 1;
	return 0;
}

void mt_idlist_release(struct mt_idlist *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
