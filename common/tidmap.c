#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "tidmap.h"
#include "banned.h"

struct mt_tidmap_slot {
	uint32_t pid, tid;
	uint32_t index; /* + 1; 0: empty */
};

static size_t home(uint32_t pid, uint32_t tid, size_t nslots)
{
	return ((tid * 2654435761u) ^ pid) & (nslots - 1);
}

void mt_tidmap_init(struct mt_tidmap *m)
{
	memset(m, 0, sizeof(*m));
}

void mt_tidmap_release(struct mt_tidmap *m)
{
	free(m->slots);
	mt_tidmap_init(m);
}

static int grow(struct mt_tidmap *m)
{
	size_t n = m->nslots ? m->nslots * 2 : 64, i;
	struct mt_tidmap_slot *s = calloc(n, sizeof(*s));

	if (!s)
		return MT_ENOMEM;
	for (i = 0; i < m->nslots; i++) {
		size_t j;

		if (!m->slots[i].index)
			continue;
		for (j = home(m->slots[i].pid, m->slots[i].tid, n); s[j].index;
		     j = (j + 1) & (n - 1))
			;
		s[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = s;
	m->nslots = n;
	return 0;
}

int mt_tidmap_get(struct mt_tidmap *m, uint32_t pid, uint32_t tid,
		  uint32_t *index, int *is_new)
{
	size_t i;
	int err;

	if (is_new)
		*is_new = 0;
	if ((m->n + 1) * 2 > m->nslots && (err = grow(m)))
		return err;
	for (i = home(pid, tid, m->nslots); m->slots[i].index;
	     i = (i + 1) & (m->nslots - 1)) {
		if (m->slots[i].pid == pid && m->slots[i].tid == tid) {
			*index = m->slots[i].index - 1;
			return 0;
		}
	}
	if (m->n >= UINT32_MAX - 1)
		return MT_ETOOBIG;
	m->slots[i].pid = pid;
	m->slots[i].tid = tid;
	m->slots[i].index = (uint32_t)++m->n;
	*index = (uint32_t)m->n - 1;
	if (is_new)
		*is_new = 1;
	return 0;
}
