#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "nest.h"
#include "banned.h"

void mt_nest_init(struct mt_nest *n, size_t size,
		  const struct mt_nest_ops *ops, void *ctx)
{
	memset(n, 0, sizeof(*n));
	n->ops = *ops;
	n->ctx = ctx;
	n->size = size;
}

void mt_nest_release(struct mt_nest *n)
{
	free(n->f);
	free(n->data);
	free(n->rmin);
	mt_nest_init(n, n->size, &n->ops, n->ctx);
}

static void pop(struct mt_nest *n)
{
	n->n--;
	n->ops.pop(n->ctx, n);
}

int mt_nest_close(struct mt_nest *n, uint64_t ts, uint64_t dur,
		  size_t *over)
{
	int incomplete = 0;
	size_t i;

	for (i = n->n; i-- > 0;) {
		const struct mt_nest_frame *f = &n->f[i];

		n->steps++;
		if (f->end == MT_NEST_PENDING) {
			incomplete = 1;
		} else if (incomplete) {
			if (ts > f->end) {
				uint64_t end = f->end;

				if (n->ops.cut)
					n->ops.cut(n->ctx, n, i, ts);
				while (n->n > i + 1) {
					n->f[n->n - 1].end = end;
					pop(n);
				}
				pop(n);
				incomplete = 0;
			}
		} else if (f->end < ts ||
			   (f->end == ts && !(f->start == f->end && dur == 0))) {
			pop(n); /* the top, even when f lies below it */
		} else if (dur != MT_NEST_PENDING && ts < f->end &&
			   ts + dur > f->end) {
			if (over)
				*over = i;
			return 0;
		}
		if (n->rmin[i] > ts &&
		    (dur == MT_NEST_PENDING || n->rmin[i] >= ts + dur))
			break;
	}
	return 1;
}

int mt_nest_push(struct mt_nest *n, uint64_t start, uint64_t end)
{
	uint64_t below = n->n ? n->rmin[n->n] : MT_NEST_PENDING;

	if (mt_grow(&n->f, &n->fcap, n->n + 1, sizeof(*n->f)) ||
	    mt_grow(&n->rmin, &n->rcap, n->n + 2, sizeof(*n->rmin)) ||
	    (n->size && mt_grow(&n->data, &n->dcap, (n->n + 1) * n->size, 1)))
		return MT_ENOMEM;
	n->rmin[0] = MT_NEST_PENDING;
	n->f[n->n].start = start;
	n->f[n->n].end = end;
	n->rmin[n->n + 1] = end < below ? end : below;
	if (n->size)
		memset(mt_nest_data(n, n->n), 0, n->size);
	n->n++;
	return 0;
}

int mt_nest_find_begun(struct mt_nest *n, uint64_t ts, size_t *i)
{
	size_t k;

	mt_nest_close(n, ts, MT_NEST_PENDING, NULL);
	for (k = n->n; k-- > 0;) {
		n->steps++;
		if (n->f[k].end == MT_NEST_PENDING) {
			*i = k;
			return 1;
		}
	}
	return 0;
}

void mt_nest_set_end(struct mt_nest *n, size_t i, uint64_t ts)
{
	size_t k;

	n->f[i].end = ts;
	if (i == n->n - 1) {
		pop(n);
		return;
	}
	for (k = i + 1; k <= n->n; k++)
		n->rmin[k] = n->f[k - 1].end < n->rmin[k - 1] ?
			     n->f[k - 1].end : n->rmin[k - 1];
}

void mt_nest_clear(struct mt_nest *n)
{
	while (n->n)
		pop(n);
}
