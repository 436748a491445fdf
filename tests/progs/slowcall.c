/*
 * slowcall: one call in many far slower than the rest, for --slower-than.
 * Calls work(i) N times (-n, 300); work spins (wall time) FAST
 * microseconds (-f, 1), and SLOW (-s, 50000) for each i given with -k
 * (any number of times; none by default). For each slow call it prints
 * its ground truth on stdout, measured around the call:
 *
 *   slow I START END
 *
 * (CLOCK_MONOTONIC ns).
 *
 * Build -O1 -fno-inline: work must stay a real call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

static volatile unsigned long sink;

static unsigned long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

__attribute__((noinline)) void work(int i, unsigned long long us)
{
	unsigned long long end = now() + us * 1000u;

	while (now() < end)
		sink += (unsigned long)i;
}

int main(int argc, char **argv)
{
	unsigned long long fast = 1, slow = 50000;
	int n = 300, c, i, nslow = 0, slows[64];

	while ((c = getopt(argc, argv, "n:f:s:k:")) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 'f': fast = strtoull(optarg, NULL, 10); break;
		case 's': slow = strtoull(optarg, NULL, 10); break;
		case 'k':
			if (nslow < 64)
				slows[nslow++] = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	for (i = 0; i < n; i++) {
		int k, is_slow = 0;

		for (k = 0; k < nslow; k++)
			is_slow |= slows[k] == i;
		if (is_slow) {
			unsigned long long a = now(), b;

			work(i, slow);
			b = now();
			printf("slow %d %llu %llu\n", i, a, b);
			fflush(stdout);
		} else {
			work(i, fast);
		}
	}
	return 0;
}
