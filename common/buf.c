#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "buf.h"
#include "err.h"
#include "banned.h"

void mt_buf_init(struct mt_buf *b)
{
	b->p = NULL;
	b->len = 0;
	b->cap = 0;
}

void mt_buf_release(struct mt_buf *b)
{
	free(b->p);
	mt_buf_init(b);
}

int mt_buf_grow(struct mt_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > SIZE_MAX / 2 - b->len - 1)
		return MT_ETOOBIG;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return MT_ENOMEM;
	if (!b->p)
		p[0] = '\0';
	b->p = p;
	b->cap = cap;
	return 0;
}

int mt_buf_add(struct mt_buf *b, const void *data, size_t n)
{
	int err = mt_buf_grow(b, n);

	if (err)
		return err;
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

char *mt_buf_detach(struct mt_buf *b, size_t *len)
{
	char *p = b->p;

	if (len)
		*len = b->len;
	mt_buf_init(b);
	return p;
}

int mt_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	void **pp = p;
	size_t c = *cap ? *cap : 8;
	char *v;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2 / elem)
			return MT_ENOMEM;
		c *= 2;
	}
	v = realloc(*pp, c * elem);
	if (!v)
		return MT_ENOMEM;
	mt_prefault(v + *cap * elem, (c - *cap) * elem);
	memset(v + *cap * elem, 0, (c - *cap) * elem);
	*pp = v;
	*cap = c;
	return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

void mt_prefault(void *p, size_t n)
{
	uintptr_t lo = (uintptr_t)p & ~(uintptr_t)4095;
	uintptr_t hi = ((uintptr_t)p + n + 4095) & ~(uintptr_t)4095;
	int e = errno;

	if (n < 16384)
		return;
	(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
	errno = e;
}
