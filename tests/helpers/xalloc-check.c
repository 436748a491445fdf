/*
 * xalloc-check: the contract of common/xalloc.h, for t0613.
 *
 * usage: xalloc-check basics
 *        xalloc-check malloc SIZE | mallocarray N SIZE | calloc N SIZE |
 *                     realloc N SIZE
 *
 * basics checks what never dies (sizes of 0, zeroing, contents kept,
 * the string functions) and prints "ok"; the others make that one call
 * with the sizes given (numbers, so that the compiler does not see them)
 * and print "ok" when it returned, as a call that cannot be met dies.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "xalloc.h"
#include "banned.h"

static const char usage_text[] =
	"usage: xalloc-check basics\n"
	"       xalloc-check malloc SIZE | mallocarray N SIZE | calloc N SIZE |\n"
	"                    realloc N SIZE\n";

static size_t number(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (!*s || *end)
		usage_fail(usage_text);
	return (size_t)v;
}

static void basics(void)
{
	unsigned char *z;
	char *s, *t;
	size_t i;

	/* a size of 0 is a pointer of its own, never NULL */
	free(xmalloc(0));
	free(xmallocarray(0, 8));
	free(xmallocarray(8, 0));
	free(xcalloc(0, 8));
	free(xcalloc(8, 0));
	free(xrealloc(NULL, 0, 8));
	free(xrealloc(xmalloc(16), 0, 1));

	z = xcalloc(100, 7);
	for (i = 0; i < 700; i++)
		if (z[i])
			die(MT_EXIT_DATA, "xcalloc: byte %zu not zero", i);
	memset(z, 0x5a, 700);
	z = xrealloc(z, 1 << 16, 7);
	for (i = 0; i < 700; i++)
		if (z[i] != 0x5a)
			die(MT_EXIT_DATA, "xrealloc: byte %zu not kept", i);
	free(z);

	s = xstrdup("mt-record");
	t = xstrndup(s, 2);
	if (strcmp(s, "mt-record") || strcmp(t, "mt"))
		die(MT_EXIT_DATA, "xstrdup, xstrndup: %s, %s", s, t);
	free(t);
	t = xstrndup(s, 100);
	if (strcmp(t, s))
		die(MT_EXIT_DATA, "xstrndup past the end: %s", t);
	free(t);
	t = xasprintf("%s/%d", s, 42);
	if (strcmp(t, "mt-record/42"))
		die(MT_EXIT_DATA, "xasprintf: %s", t);
	free(t);
	free(s);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	void *p = NULL;

	mt_set_progname(argv[0]);
	if (!strcmp(what, "basics") && argc == 2)
		basics();
	else if (!strcmp(what, "malloc") && argc == 3)
		p = xmalloc(number(argv[2]));
	else if (!strcmp(what, "mallocarray") && argc == 4)
		p = xmallocarray(number(argv[2]), number(argv[3]));
	else if (!strcmp(what, "calloc") && argc == 4)
		p = xcalloc(number(argv[2]), number(argv[3]));
	else if (!strcmp(what, "realloc") && argc == 4)
		p = xrealloc(xmalloc(16), number(argv[2]), number(argv[3]));
	else
		usage_fail(usage_text);
	free(p);
	puts("ok");
	close_stdout_or_die();
	return 0;
}
