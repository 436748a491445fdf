/*
 * faults: a target for mt-record --events. Touches N fresh pages (argument,
 * default 1000) in touch_pages(), between two stretches of spin(), and
 * prints the minor faults the kernel counted (getrusage) across
 * touch_pages(): the ground truth for the minor-faults samples there.
 *
 * Build -O1 -fno-inline: every function here must stay a real call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "banned.h"

/* one write a page: a minor fault each (no huge pages) */
__attribute__((noinline)) void touch_pages(volatile char *p, long n, long page)
{
	long i;

	for (i = 0; i < n; i++)
		p[i * page] = 1;
}

__attribute__((noinline)) long spin(long n)
{
	volatile long x = 0;
	long i;

	for (i = 0; i < n; i++)
		x += i;
	return x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	long page = sysconf(_SC_PAGESIZE);
	struct rusage before, after;
	char *p;

	if (n < 1 || page < 1)
		return 2;
	p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise(p, (size_t)(n * page), MADV_NOHUGEPAGE);
	spin(20000000);
	getrusage(RUSAGE_SELF, &before);
	touch_pages(p, n, page);
	getrusage(RUSAGE_SELF, &after);
	spin(20000000);
	printf("%ld\n", after.ru_minflt - before.ru_minflt);
	return 0;
}
