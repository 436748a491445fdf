#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "intern.h"
#include "banned.h"

/* Copies live in chunks so that interning many short names costs one
 * allocation per 64 KiB rather than one per name. */
#define CHUNK_SIZE 65536

struct mt_intern_chunk {
	struct mt_intern_chunk *next;
	size_t used, size;
	char data[];
};

uint32_t mt_hash(const void *s, size_t len)
{
	const unsigned char *p = s;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
	uint64_t w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		p += 8;
		len -= 8;
	}
	w = 0;
	memcpy(&w, p, len);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	return (uint32_t)h;
}

void mt_intern_init(struct mt_intern *t)
{
	memset(t, 0, sizeof(*t));
}

void mt_intern_release(struct mt_intern *t)
{
	struct mt_intern_chunk *c = t->chunks;

	while (c) {
		struct mt_intern_chunk *next = c->next;
		free(c);
		c = next;
	}
	free(t->slots);
	free(t->strs);
	mt_intern_init(t);
}

static char *copy_bytes(struct mt_intern *t, const char *s, size_t len)
{
	struct mt_intern_chunk *c = t->chunks;
	char *p;

	if (!c || c->size - c->used < len + 1) {
		size_t size = len + 1 > CHUNK_SIZE / 4 ? len + 1 : CHUNK_SIZE;
		struct mt_intern_chunk *n = malloc(sizeof(*n) + size);

		if (!n)
			return NULL;
		n->used = 0;
		n->size = size;
		if (size == CHUNK_SIZE || !c) {
			n->next = c;
			t->chunks = n;
		} else {
			/* A big string gets its own chunk behind the current one
			 * so the current one keeps filling. */
			n->next = c->next;
			c->next = n;
		}
		c = n;
	}
	p = c->data + c->used;
	memcpy(p, s, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

static int rehash(struct mt_intern *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *slots = calloc(n, sizeof(*slots));
	size_t id;

	if (!slots)
		return MT_ENOMEM;
	for (id = 1; id <= t->nstrs; id++) {
		size_t i = t->strs[id].hash & (n - 1);

		while (slots[i])
			i = (i + 1) & (n - 1);
		slots[i] = (uint32_t)id;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

int mt_intern_get(struct mt_intern *t, const char *s, size_t len, uint32_t *id,
		  int *is_new)
{
	struct mt_intern_str *e;
	uint32_t h;
	size_t i;
	int err;

	if (is_new)
		*is_new = 0;
	if (len >= UINT32_MAX)
		return MT_ETOOBIG;
	h = mt_hash(s, len);
	if (t->nslots) {
		for (i = h & (t->nslots - 1); t->slots[i];
		     i = (i + 1) & (t->nslots - 1)) {
			e = &t->strs[t->slots[i]];
			if (e->hash == h && e->len == len &&
			    !memcmp(e->p, s, len)) {
				*id = t->slots[i];
				return 0;
			}
		}
	}
	if (t->nstrs >= UINT32_MAX - 1)
		return MT_ETOOBIG;
	/* keep the load factor under 1/2 */
	if ((t->nstrs + 1) * 2 > t->nslots && (err = rehash(t)))
		return err;
	if (t->nstrs + 1 >= t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct mt_intern_str *strs = realloc(t->strs, cap * sizeof(*strs));

		if (!strs)
			return MT_ENOMEM;
		t->strs = strs;
		t->cap = cap;
	}
	e = &t->strs[t->nstrs + 1];
	e->p = copy_bytes(t, s, len);
	if (!e->p)
		return MT_ENOMEM;
	e->len = (uint32_t)len;
	e->hash = h;
	t->nstrs++;
	for (i = h & (t->nslots - 1); t->slots[i]; i = (i + 1) & (t->nslots - 1))
		;
	t->slots[i] = (uint32_t)t->nstrs;
	*id = (uint32_t)t->nstrs;
	if (is_new)
		*is_new = 1;
	return 0;
}

const char *mt_intern_str(const struct mt_intern *t, uint32_t id, size_t *len)
{
	if (id == 0 || id > t->nstrs)
		return NULL;
	if (len)
		*len = t->strs[id].len;
	return t->strs[id].p;
}
