/*
 * threads: a thread-per-request server in small. Starts N threads in all
 * (default 1000), at most K alive at a time (default 4); each calls work()
 * M times (default 6) and ends. Prints "threads N calls C" (C: work's
 * calls) when the last has ended. A tracer must keep every thread, not
 * only the first few hundred.
 *   threads [N [K [M [U]]]]
 *
 * Build -O1 -fno-inline: work must stay a real call.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "banned.h"

#define MAX_ALIVE 64

static long m = 6, calls;

__attribute__((noinline)) long work(long k);
__attribute__((noinline)) long work(long k)
{
	__asm__ volatile("" ::: "memory");
	return k + 1;
}

__attribute__((noinline)) static void *request(void *arg)
{
	long i, s = 0;

	for (i = 0; i < m; i++)
		s += work((long)arg + i);
	__atomic_fetch_add(&calls, m, __ATOMIC_RELAXED);
	return (void *)s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, k = argc > 2 ? atol(argv[2]) : 4, i;
	long us = argc > 4 ? atol(argv[4]) : 0;
	pthread_t t[MAX_ALIVE];

	if (argc > 3)
		m = atol(argv[3]);
	if (n < 1 || k < 1 || k > MAX_ALIVE || m < 0)
		return 2;
	for (i = 0; i < n; i++) {
		if (i >= k)
			pthread_join(t[i % k], NULL);
		if (us)
			usleep((useconds_t)us);
		pthread_create(&t[i % k], NULL, request, (void *)i);
	}
	for (i = n > k ? n - k : 0; i < n; i++)
		pthread_join(t[i % k], NULL);
	printf("threads %ld calls %ld\n", n, calls);
	return 0;
}
