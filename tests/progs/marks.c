/*
 * marks: a target for mt-record's continuous --repeat tests. It calls
 * mark(i) K times (-k, 4 by default); before each call it runs between(i):
 * C calls of step() (-c, 100) and then S milliseconds of CPU time in spin()
 * (-s, 0), and prints its ground truth on stdout:
 *
 *   mark I STEPS T
 *
 * (I the iteration passed to mark(), STEPS the step() calls made since the
 * previous mark, T CLOCK_MONOTONIC nanoseconds just before the call). After
 * the last mark it exits at once; with -l it goes on calling step() until
 * killed. -w: waits for a byte on stdin first (a recorder attaches).
 *
 * Build -O1 -fno-inline: every function here must stay a real call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

static volatile unsigned long sink;

__attribute__((noinline)) void step(int i)
{
	sink += (unsigned long)i * 3;
	__asm__ volatile("" ::: "memory");
}

static unsigned long long ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* CPU time, not wall time: as many samples however loaded the machine */
__attribute__((noinline)) void spin(int ms)
{
	unsigned long long end = ns(CLOCK_THREAD_CPUTIME_ID) + (unsigned long long)ms * 1000000u;

	while (ns(CLOCK_THREAD_CPUTIME_ID) < end)
		sink++;
}

__attribute__((noinline)) void between(int i, int calls, int ms)
{
	int k;

	for (k = 0; k < calls; k++)
		step(i);
	if (ms)
		spin(ms);
}

__attribute__((noinline)) void mark(int i)
{
	sink += (unsigned long)i;
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int k = 4, calls = 100, ms = 0, forever = 0, c, i;

	while ((c = getopt(argc, argv, "k:c:s:lw")) != -1) {
		switch (c) {
		case 'k': k = atoi(optarg); break;
		case 'c': calls = atoi(optarg); break;
		case 's': ms = atoi(optarg); break;
		case 'l': forever = 1; break;
		case 'w': {
			char b;

			if (read(0, &b, 1) < 0)
				return 1;
			break;
		}
		default:
			fprintf(stderr, "usage: marks [-k K] [-c C] [-s MS] [-l] [-w]\n");
			return 2;
		}
	}
	for (i = 0; i < k; i++) {
		between(i, calls, ms);
		printf("mark %d %d %llu\n", i, calls, ns(CLOCK_MONOTONIC));
		fflush(stdout);
		mark(i);
	}
	while (forever)
		between(k, calls, ms ? ms : 1);
	return 0;
}
