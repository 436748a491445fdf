#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "xalloc.h"
#include "banned.h"

static _Noreturn void out_of_memory(void)
{
	die(MT_EXIT_SYSTEM, "out of memory");
}

static size_t mul_or_die(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		out_of_memory();
	return n * size;
}

/* a size of 0 asks for 1 byte: malloc(0) may return NULL, and glibc's
 * realloc(p, 0) frees p and does */
void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

void *xmallocarray(size_t n, size_t size)
{
	return xmalloc(mul_or_die(n, size));
}

void *xcalloc(size_t n, size_t size)
{
	void *p;

	mul_or_die(n, size);
	p = n && size ? calloc(n, size) : calloc(1, 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xrealloc(void *p, size_t n, size_t size)
{
	size_t bytes = mul_or_die(n, size);
	void *q = realloc(p, bytes ? bytes : 1);

	if (!q)
		out_of_memory();
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		out_of_memory();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		out_of_memory();
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		out_of_memory();
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
