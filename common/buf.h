/*
 * struct mt_buf: the one growable byte buffer of mt.
 *
 * Ownership: the buffer owns p; mt_buf_release() frees it and leaves an empty,
 * reusable buffer. mt_buf_detach() hands p to the caller. A zeroed struct
 * (MT_BUF_INIT) is a valid empty buffer. p is NUL-terminated whenever it is
 * non-NULL, so text can be used with C string functions (len excludes the NUL).
 */
#ifndef MT_BUF_H
#define MT_BUF_H

#include <stddef.h>

struct mt_buf {
	char *p;
	size_t len;
	size_t cap; /* bytes allocated, including room for the NUL */
};

#define MT_BUF_INIT { NULL, 0, 0 }

void mt_buf_init(struct mt_buf *b);
void mt_buf_release(struct mt_buf *b);

/* Make room for extra more bytes (plus the NUL). 0 or MT_ENOMEM/MT_ETOOBIG. */
int mt_buf_grow(struct mt_buf *b, size_t extra);

/* Append n bytes. 0 or MT_ENOMEM/MT_ETOOBIG; on error b is unchanged. */
int mt_buf_add(struct mt_buf *b, const void *data, size_t n);

/* Keep the allocation, drop the contents. */
static inline void mt_buf_reset(struct mt_buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

/*
 * Room for need elements of elem bytes in the array *p of *cap elements
 * (realloc'd, at least doubling; the new elements zeroed). 0, or
 * MT_ENOMEM with *p and *cap unchanged.
 */
int mt_grow(void *p, size_t *cap, size_t need, size_t elem);

/*
 * Makes the pages of [p, p + n) present now, as writing them would, in
 * one system call (MADV_POPULATE_WRITE), for memory about to be written
 * whole: on a VM that shadows page tables a page fault costs ten times
 * what populating the page does. The bytes are unchanged. Only for
 * memory the caller may write: malloc'd or mapped writable (a partial
 * page at either end is populated whole, harmlessly: a page written
 * anywhere is present). Nothing happens below 16 KiB or on a kernel
 * before 5.14; errno is kept.
 */
void mt_prefault(void *p, size_t n);

/* Return the bytes (NUL-terminated, or NULL if never grown) and reset b to
 * empty; the caller frees them. */
char *mt_buf_detach(struct mt_buf *b, size_t *len);

#endif
