/*
 * libloop LIB...: loads each LIB (dlopen) and calls its lib_entry(k) in
 * turn, a round every millisecond, until its standard input ends (or a
 * line comes); prints "ready" once every library answered once, then at
 * the end "rounds N sum S". For mt-record's tests of the files a traced
 * process maps (t1216): the libraries are built by the test, each with
 * functions of names of its own that lib_entry calls.
 *
 * Build -O1 -fno-inline (no sanitizer: another user may run it).
 */
#include <dlfcn.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

#include "banned.h"

#define MAX_LIBS 8

typedef unsigned long entry_fn(unsigned long);

/* Whether standard input has ended (or said something): the end. */
static int told_to_stop(void)
{
	struct pollfd p = { 0, POLLIN, 0 };

	return poll(&p, 1, 1) > 0;
}

int main(int argc, char **argv)
{
	entry_fn *entry[MAX_LIBS];
	unsigned long sum = 0, rounds = 0;
	int n = argc - 1, i;

	if (n < 1 || n > MAX_LIBS) {
		fprintf(stderr, "usage: libloop LIB... (1 to %d)\n", MAX_LIBS);
		return 2;
	}
	for (i = 0; i < n; i++) {
		void *h = dlopen(argv[i + 1], RTLD_NOW | RTLD_LOCAL);

		if (!h || !(*(void **)&entry[i] = dlsym(h, "lib_entry"))) {
			fprintf(stderr, "libloop: %s\n", dlerror());
			return 1;
		}
	}
	do {
		for (i = 0; i < n; i++)
			sum += entry[i](rounds);
		if (!rounds++) {
			printf("ready\n");
			fflush(stdout);
		}
	} while (!told_to_stop());
	printf("rounds %lu sum %lu\n", rounds, sum);
	return 0;
}
