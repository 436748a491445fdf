/*
 * Allocation that does not fail: each function here returns the memory or
 * dies (die.h) with MT_EXIT_SYSTEM and the message "out of memory". Tool
 * tier (libmttool.a, like die.h): the library proper (libmt.a) returns
 * MT_ENOMEM instead, and the code that runs inside another process (the
 * patch runtime in a traced program, the dlfilter in perf) must not die.
 *
 * None returns NULL, not even for a size of 0 (a unique pointer then, to
 * free as any other). Where a size is a count times an element size,
 * xmallocarray, xcalloc and xrealloc check the multiplication, as
 * reallocarray(3) does: an overflow dies as memory running out does.
 *
 * Ownership: the caller owns what each returns and releases it with
 * free(); xrealloc takes over p (freed or moved, as realloc(3)).
 */
#ifndef MT_XALLOC_H
#define MT_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

/* malloc(size); uninitialised. */
void *xmalloc(size_t size)
	__attribute__((malloc, returns_nonnull, alloc_size(1)));

/* malloc(n * size), the product checked; uninitialised. */
void *xmallocarray(size_t n, size_t size)
	__attribute__((malloc, returns_nonnull, alloc_size(1, 2)));

/* calloc(n, size): zeroed, the product checked. */
void *xcalloc(size_t n, size_t size)
	__attribute__((malloc, returns_nonnull, alloc_size(1, 2)));

/*
 * reallocarray(p, n, size): p (NULL or an earlier allocation) resized to n
 * elements of size bytes, its contents kept up to the smaller size, the
 * rest uninitialised. On failure p is left as it was, and the tool dies.
 */
void *xrealloc(void *p, size_t n, size_t size)
	__attribute__((returns_nonnull, alloc_size(2, 3)));

/* strdup(s). */
char *xstrdup(const char *s) __attribute__((malloc, returns_nonnull));

/* strndup(s, n): at most the first n bytes of s, NUL-terminated. */
char *xstrndup(const char *s, size_t n) __attribute__((malloc, returns_nonnull));

/* asprintf: the formatted text, in a string of its own length. */
char *xasprintf(const char *fmt, ...)
	__attribute__((malloc, returns_nonnull, format(printf, 1, 2)));
/* xasprintf() with a va_list. */
char *xvasprintf(const char *fmt, va_list ap)
	__attribute__((malloc, returns_nonnull, format(printf, 1, 0)));

#endif
