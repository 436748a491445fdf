/*
 * The merge of sources in time order: see merge.h.
 */
#include <stdlib.h>

#include "err.h"
#include "merge.h"
#include "banned.h"

int mt_merge_init(struct mt_merge *m, size_t cap)
{
	m->n = 0;
	m->cap = cap;
	m->h = calloc(cap ? cap : 1, sizeof(*m->h));
	return m->h ? 0 : MT_ENOMEM;
}

void mt_merge_release(struct mt_merge *m)
{
	free(m->h);
	m->h = NULL;
	m->n = m->cap = 0;
}

static int before(const struct mt_merge_head *a, const struct mt_merge_head *b)
{
	return a->time != b->time ? a->time < b->time : a->src < b->src;
}

static void swap(struct mt_merge_head *a, struct mt_merge_head *b)
{
	struct mt_merge_head t = *a;

	*a = *b;
	*b = t;
}

static void sift_down(struct mt_merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, least = i;

		if (l < m->n && before(&m->h[l], &m->h[least]))
			least = l;
		if (l + 1 < m->n && before(&m->h[l + 1], &m->h[least]))
			least = l + 1;
		if (least == i)
			return;
		swap(&m->h[i], &m->h[least]);
		i = least;
	}
}

int mt_merge_add(struct mt_merge *m, uint32_t src, uint64_t time)
{
	size_t i = m->n;

	if (m->n >= m->cap)
		return MT_EINVAL;
	m->h[m->n++] = (struct mt_merge_head){ time, src };
	while (i > 0 && before(&m->h[i], &m->h[(i - 1) / 2])) {
		swap(&m->h[i], &m->h[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	return 0;
}

int mt_merge_top(const struct mt_merge *m, uint32_t *src)
{
	if (!m->n)
		return 0;
	*src = m->h[0].src;
	return 1;
}

void mt_merge_next(struct mt_merge *m, uint64_t time)
{
	if (!m->n)
		return;
	m->h[0].time = time;
	sift_down(m, 0);
}

void mt_merge_drop(struct mt_merge *m)
{
	if (!m->n)
		return;
	m->h[0] = m->h[--m->n];
	sift_down(m, 0);
}
