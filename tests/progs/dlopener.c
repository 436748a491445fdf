/*
 * dlopener LIB [N [nodump]]: calls before() 10 times, then loads LIB
 * (dlopen), and calls its plug_run N times (100 by default); prints the
 * sum of what it returned. For the patch backend's libraries mapped
 * later. With nodump it first makes itself not dumpable (no ptrace by
 * its user: PR_SET_DUMPABLE 0).
 *
 * Build -O1 -fno-inline: before must stay a real call.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "banned.h"

static volatile int calls;

__attribute__((noinline)) int before(int i)
{
	calls++;
	__asm__ volatile("" ::: "memory");
	return i + 1;
}

int main(int argc, char **argv)
{
	unsigned long (*run)(unsigned long), sum = 0, k, n = argc > 2 ? strtoul(argv[2], NULL, 10) : 100;
	void *h;
	int i;

	if (argc < 2)
		return 2;
	if (argc > 3 && !strcmp(argv[3], "nodump") && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		return 1;
	for (i = 0; i < 10; i++)
		sum += (unsigned long)before(i);
	if (!(h = dlopen(argv[1], RTLD_NOW)) ||
	    !(*(void **)&run = dlsym(h, "plug_run"))) {
		fprintf(stderr, "dlopener: %s\n", dlerror());
		return 1;
	}
	for (k = 0; k < n; k++)
		sum += run(k);
	printf("sum %lu\n", sum);
	return 0;
}
